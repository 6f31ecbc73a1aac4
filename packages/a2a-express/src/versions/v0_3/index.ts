// A2A 0.3 as a plug-in: its options, methods, error codes, push body, card and HTTP+JSON routes.
import type { ListedInterface, ProtocolVersion, ServableVersion } from '../../protocol/version.js';
import { inputModesOfCard, urlBelow, versionPlacement } from '../../core/version-options.js';
import type { AgentCard as AgentCard03, AgentInterface as AgentInterface03 } from 'a2a-types/v0.3';
import { agentCard03, checkAgentCard03, type AgentCard03Input } from './card.js';
import { errorTo03, PROTOCOL_NAME_03, pushBodyTo03 } from './mapping.js';
import { methods03 } from './methods.js';
import { rest03 } from './rest.js';

const protocol03: ProtocolVersion = {
  name: PROTOCOL_NAME_03,
  methods: methods03,
  wireError: errorTo03,
  pushBody: pushBodyTo03,
  foundAt: 'The 0.3 endpoint is the url of /.well-known/agent-card.json',
  // A2A 0.3 defines no notification; the official conformance kit expects a call without an id
  // that fails to be answered (spec 0.3 6.11: `id` is null where it cannot be read).
  answersFailedNotifications: true,
  // The official 0.3 SDK clients read a streaming call's answer as SSE only: an error sent as
  // JSON reaches them as "invalid content type", its code lost.
  streamsErrorsOfStreamingMethods: true,
};

/** Options of the A2A 0.3 binding. */
export interface Protocol03Options {
  /**
   * Where the 0.3 JSON-RPC endpoint is, relative to the router's mount. Default `'/v0.3'`. It
   * cannot share `/` with 0.1.0: `tasks/get`, `tasks/cancel` and `tasks/resubscribe` have the same
   * names in both versions and different answers.
   */
  path?: string;
  /** Fields to add to, or replace in, the 0.3 card the router makes from `card` (e.g. `iconUrl`). */
  card?: AgentCard03Input;
}

/** The router's options that 0.3 reads. */
export interface Options03 {
  /**
   * Serve A2A 0.3 beside 0.1.0, from the same handler and the same tasks: its JSON-RPC methods
   * (`message/send`, `message/stream`, ...) at `path` and its card at
   * `GET /.well-known/agent-card.json`. Default on; `false` leaves 0.3 out.
   */
  protocol03?: boolean | Protocol03Options;
}

/** A client that names no version, or any 0.x, reads the 0.3 card (spec 1.0 3.6.2: no `A2A-Version` is 0.3). */
const OF_0_X = /^0\.\d+(\.\d+)?$/;

/**
 * 0.3 on its own path (its three method names shared with 0.1.0 need their own endpoint), its
 * card at the root's `/.well-known/agent-card.json` and also below the endpoint, for a client
 * given the endpoint itself as the agent's base URL. The card is checked against the 0.3 schema
 * when the router is made.
 */
export const version03: ServableVersion<Options03> = {
  protocol: protocol03,
  shownAs: { routerPath: 'protocol03Path', listeningUrl: 'url03' },
  configure(options) {
    const placement = versionPlacement(options.protocol03, 'protocol03', '/v0.3');
    if (!placement) return undefined;
    const { path, card: overrides } = placement;
    return {
      path,
      inputModes: inputModesOfCard(overrides),
      listedInterfaces: (mountUrl) => [
        { url: urlBelow(mountUrl, path), protocolBinding: 'JSONRPC', protocolVersion: PROTOCOL_NAME_03 },
        { url: urlBelow(mountUrl, path), protocolBinding: 'HTTP+JSON', protocolVersion: PROTOCOL_NAME_03 },
      ],
      endpoint: ({ auth, extensions, otherInterfaces }) => ({
        version: protocol03,
        path,
        cardPaths: [`${path}/.well-known/agent-card.json`],
        sharedCardPath: {
          path: '/.well-known/agent-card.json',
          rank: (requested) => (requested === undefined || OF_0_X.test(requested) ? 2 : 0),
        },
        cardCaching: true,
        card: (agentCard) =>
          agentCard03(agentCard, urlBelow(agentCard.url, path), auth, overrides, extensions, interfaces03(otherInterfaces(agentCard.url))),
        checkCard: (card) => checkAgentCard03(card as AgentCard03),
        // Below the same URL as JSON-RPC: `${path}/v1/message:send`, ...
        rest: rest03,
        // Loaded by the gRPC server alone: an agent that serves no gRPC loads no protobuf code.
        grpc: () => import('./grpc.js').then((module) => module.grpc03),
      }),
    };
  },
};

/** The interfaces served elsewhere that speak 0.3 (its gRPC server's), as the 0.3 card's `additionalInterfaces` list them. */
function interfaces03(listed: readonly ListedInterface[]): AgentInterface03[] {
  return listed
    .filter((entry) => entry.protocolVersion === PROTOCOL_NAME_03)
    .map(({ url, protocolBinding }) => ({ url, transport: protocolBinding }));
}

export type { AgentCard03Input } from './card.js';
