import type { A2AMethod, Validator } from 'a2a-types';
import { ownerKey, type Principal } from './auth.js';
import type { TaskEventStream } from './event-feed.js';
import type { TaskService } from './task-service.js';

/** One call of a method. */
export interface MethodCall {
  readonly service: TaskService;
  /** Who is calling, when the router authenticates requests. */
  readonly principal: Principal | undefined;
  /** The `Last-Event-ID` the client sent (a resubscription), as it came. */
  readonly lastEventId: string | undefined;
  /** The version's extended agent card for this caller; absent when the agent has none. */
  readonly extendedCard?: () => Promise<unknown>;
  /** The client's address, read when asked (see {@link streamHolder}). */
  readonly clientAddress: (() => string | undefined) | undefined;
}

/**
 * Who holds the streams a call opens: its principal, or without authentication the client's
 * address. What the bound on streams per principal counts by. Asked only by calls that open a
 * stream: the address is derived on each read (Express's `trust proxy`).
 */
export function streamHolder(call: MethodCall): string {
  return call.principal ? `principal:${ownerKey(call.principal)}` : `address:${call.clientAddress?.() ?? 'unknown'}`;
}

/** The capability a method needs; without it the method answers that capability's error. */
export type Capability = 'streaming' | 'pushNotifications';

interface MethodBase<P> {
  /** Checked before the params: a method of a disabled capability refuses every call. */
  readonly requires?: Capability;
  /**
   * The 0.1.0 method whose operation this one performs, as the authorize hook is asked (a 0.3
   * method; see `AuthorizeHook`). Default: the method's own name.
   */
  readonly operation?: A2AMethod;
  /**
   * The params as the 0.1.0 `operation` takes them, for a method of another version: what the
   * authorize hook is shown, so that a rule reading params means the same on every version, and
   * what `run`/`open` get as `asOperation`, so that the call does exactly what was authorized.
   * Made once per call, after the params are valid. Default: the params as they are.
   */
  readonly toOperation?: (params: P) => unknown;
  readonly validateParams: Validator<P>;
  /**
   * Where the params hold ids (JSON Pointers; `*` for every item of an array), each held to the
   * kit's id rules once the params are valid: at most `MAX_ID_LENGTH` characters, well-formed
   * Unicode. Default `['/id']`.
   */
  readonly idPaths?: readonly string[];
  /**
   * The task the call is about, read from its params before they are checked (so: anything),
   * for its log line, metrics and span. Default `params.id`; see {@link taskIdAt}.
   */
  readonly taskIdOf?: (params: unknown) => string | undefined;
}

/** Reads the string at `path` in params that may be anything: where a method names its task. */
export function taskIdAt(...path: string[]): (params: unknown) => string | undefined {
  return (params) => {
    let at = params;
    for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
    return typeof at === 'string' ? at : undefined;
  };
}

/** A method answered with one JSON-RPC response. */
export interface UnaryMethod<P> extends MethodBase<P> {
  readonly kind: 'unary';
  /** `asOperation` is what `toOperation` made of the params (the params themselves without it). */
  run(params: P, call: MethodCall, asOperation: unknown): Promise<unknown>;
}

/** A method answered with a stream of events. */
export interface StreamingMethod<P> extends MethodBase<P> {
  readonly kind: 'streaming';
  /** Prepares the stream; an error thrown here is still answered as plain JSON-RPC. */
  open(params: P, call: MethodCall, asOperation: unknown): Promise<TaskEventStream>;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds methods of every params type; each checks its own.
export type Method = UnaryMethod<any> | StreamingMethod<any>;
