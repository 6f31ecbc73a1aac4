// The protocol versions the kit serves, one line each: the router, the agent core, the options
// and serveAgent iterate this list, and nothing outside versions/ names a version. A version is
// its folder (versions/<v>/) and its line here.
import type { ServableVersion } from '../protocol/version.js';
import { version01 } from './v0_1/index.js';
import { type Options03, version03 } from './v0_3/index.js';
import { type Options10, version10 } from './v1_0/index.js';

/** The router's options that the versions read, each its own (`protocol03`, `protocol10`, ...). */
export type VersionOptions = Options03 & Options10;

/** Every version the kit can serve, oldest first; which are served, each decides from its options. */
export const VERSIONS: readonly ServableVersion<VersionOptions>[] = [version01, version03, version10];

/** Where the router shows each version's path below its mount: undefined when it is not served. */
export interface VersionPaths {
  /** Where the A2A 0.3 JSON-RPC endpoint is, relative to the mount (`'/v0.3'`); undefined when 0.3 is off. */
  readonly protocol03Path: string | undefined;
  /** Where the A2A 1.0 interface is, relative to the mount (`'/v1'`); undefined when 1.0 is off. */
  readonly protocol10Path: string | undefined;
}

export type { AgentCard03Input, Protocol03Options } from './v0_3/index.js';
export type { AgentCard10Input, ExtendedCardOption, Protocol10Options } from './v1_0/index.js';
