// A2A 1.0 as a plug-in: its options, operations, errors, push body and card.
import { A2AError, type AgentCard, type ErrorCode } from 'a2a-types/model';
import { ErrorCode10, errorInfo, type AgentCard as AgentCard10, type AgentInterface } from 'a2a-types/v1.0';
import type { AuthOptions, Principal } from '../../core/auth.js';
import type { ListedInterface, ProtocolVersion, ServableVersion, VersionEndpoint } from '../../protocol/version.js';
import { inputModesOfCard, urlBelow, versionPlacement } from '../../core/version-options.js';
import { agentCard10, checkAgentCard10, type AgentCard10Input } from './card.js';
import { errorTo10, pushBodyTo10, PROTOCOL_NAME_10, PROTOCOL_VERSION_10 } from './mapping.js';
import { methods10 } from './methods.js';
import { rest10 } from './rest.js';

const protocol10: ProtocolVersion = {
  name: PROTOCOL_NAME_10,
  methods: methods10,
  wireError: errorTo10,
  pushBody: pushBodyTo10,
  // Spec 1.0 4.3.3: a StreamResponse as application/a2a+json, with the client's credentials.
  pushDelivery: { contentType: 'application/a2a+json', credentialsInAuthorization: true },
  foundAt: 'The 1.0 interfaces are the supportedInterfaces of the card at /.well-known/agent-card.json (A2A-Version: 1.0)',
  // 1.0's methods all return something: a call without an id is a client's mistake to hear of.
  answersFailedNotifications: true,
};

/** Fields a caller's extended card adds to the 1.0 card, or a function of the caller that gives them. */
export type ExtendedCardOption = AgentCard10Input | ((principal: Principal) => AgentCard10Input | Promise<AgentCard10Input>);

/** Options of the A2A 1.0 bindings. */
export interface Protocol10Options {
  /** Where the 1.0 interface is, relative to the router's mount. Default `'/v1'`. */
  path?: string;
  /** Fields to add to, or replace in, the 1.0 card the router makes from `card` (e.g. `iconUrl`). */
  card?: AgentCard10Input;
}

/** The router's options that 1.0 reads. */
export interface Options10 {
  /**
   * Serve A2A 1.0 beside 0.1.0 (and 0.3), from the same handler and the same tasks: its JSON-RPC
   * methods (`SendMessage`, `SendStreamingMessage`, ...) at `path`, its HTTP+JSON binding below
   * it, its card at `${path}/.well-known/agent-card.json` and, to a client that asks for 1.0
   * (`A2A-Version`), at `GET /.well-known/agent-card.json`. Default on; `false` leaves 1.0 out.
   */
  protocol10?: boolean | Protocol10Options;
  /**
   * A fuller card for authenticated callers (A2A 1.0 `GetExtendedAgentCard`, `GET
   * /extendedAgentCard`): fields to add to, or replace in, the 1.0 card (more skills, say), or a
   * function of the caller that gives them. The public card then says
   * `capabilities.extendedAgentCard: true`. Needs `auth`: the extended card is for callers who
   * authenticated (spec 1.0 3.1.11).
   */
  extendedCard?: ExtendedCardOption;
}

/** A client that asks for any 1.x reads the 1.0 card (minor versions add, spec 1.0 3.6). */
const OF_1_X = /^1\.\d+(\.\d+)?$/;
/** A client that names no version, or a 0.x, reads the 1.0 card when no 0.x card is served. */
const OF_0_X = /^0\.\d+(\.\d+)?$/;

/**
 * 1.0 on its own path: JSON-RPC at `path` itself, HTTP+JSON below it (`${path}/message:send`, ...),
 * one URL for both interfaces; its card at `${path}/.well-known/agent-card.json` (for a client
 * given the interface itself as the agent's base URL) and, to a client that asks for it, at the
 * root's `/.well-known/agent-card.json`. The card lists 1.0's interfaces and every other version's
 * the router serves; it is checked against the published 1.0 schema when the router is made.
 */
export const version10: ServableVersion<Options10> = {
  protocol: protocol10,
  shownAs: { routerPath: 'protocol10Path', listeningUrl: 'url10' },
  configure(options) {
    const extended = checkedExtendedCard(options);
    const placement = versionPlacement(options.protocol10, 'protocol10', '/v1');
    if (!placement) return undefined;
    const { path, card: overrides } = placement;
    const interfaces = (mountUrl: string): ListedInterface[] => {
      const url = urlBelow(mountUrl, path);
      return [
        { url, protocolBinding: 'JSONRPC', protocolVersion: PROTOCOL_VERSION_10 },
        { url, protocolBinding: 'HTTP+JSON', protocolVersion: PROTOCOL_VERSION_10 },
      ];
    };
    return {
      path,
      inputModes: inputModesOfCard(overrides),
      listedInterfaces: interfaces,
      endpoint: ({ auth, extensions, otherInterfaces, listedTenants }) =>
        endpoint10(path, extended, (agentCard) => {
          // 1.0's own first, those served elsewhere (its gRPC server) among them: a client takes the
          // first it speaks, and 0.3's gRPC service, on the same server, would otherwise come first.
          const others = otherInterfaces(agentCard.url);
          const listed: AgentInterface[] = [
            ...interfaces(agentCard.url),
            ...others.filter((entry) => entry.protocolVersion === PROTOCOL_VERSION_10),
            ...others.filter((entry) => entry.protocolVersion !== PROTOCOL_VERSION_10),
          ];
          // Each tenant listed reaches the same 1.0 interfaces, its name in every request (spec 1.0 8.3.2).
          const ofTenants = listedTenants.flatMap((tenant) =>
            listed.filter((entry) => entry.protocolVersion === PROTOCOL_VERSION_10).map((entry) => ({ ...entry, tenant })),
          );
          return agentCard10(agentCard, [...listed, ...ofTenants], auth, overrides, extensions);
        }),
    };
  },
};

/** The 1.0 endpoint at `path`, whose public card `publicCard` makes. */
function endpoint10(
  path: string,
  extended: ExtendedCardOption | undefined,
  publicCard: (agentCard: AgentCard) => AgentCard10,
): VersionEndpoint {
  const card = (agentCard: AgentCard) => {
    const card10 = publicCard(agentCard);
    if (extended) card10.capabilities = { ...card10.capabilities, extendedAgentCard: true };
    return card10;
  };
  return {
    version: protocol10,
    path,
    cardPaths: [`${path}/.well-known/agent-card.json`],
    sharedCardPath: {
      path: '/.well-known/agent-card.json',
      // Below 0.3's rank for a client that names no version or a 0.x: the card it gets when 0.3 is off.
      rank: (requested) => {
        if (requested !== undefined && OF_1_X.test(requested)) return 2;
        return requested === undefined || OF_0_X.test(requested) ? 1 : 0;
      },
    },
    cardCaching: true,
    refusedCard: (requested, served) => ({
      status: 400,
      body: {
        error: {
          code: 400,
          status: 'FAILED_PRECONDITION',
          message: `A2A-Version ${requested} is not served; this card is served for A2A-Version ${served.join(' and ')}`,
          details: [errorInfo('VERSION_NOT_SUPPORTED', { requested })],
        },
      },
    }),
    card,
    extendedCard:
      extended &&
      (async (agentCard, principal) => {
        const fields = typeof extended === 'function' ? await extended(principal) : extended;
        const base = card(agentCard);
        // What the router serves stays as the public card says it: the interfaces, and the
        // capabilities (which the extended card may add to, not take from).
        const full = {
          ...base,
          ...fields,
          supportedInterfaces: base.supportedInterfaces,
          capabilities: { ...fields.capabilities, ...base.capabilities },
        };
        // Checked on each call when a function makes it: a card the published schema refuses is
        // the agent's mistake, answered -32603 (logged) rather than sent.
        checkAgentCard10(full as Parameters<typeof checkAgentCard10>[0]);
        return full;
      }),
    checkCard: (card) => checkAgentCard10(card as Parameters<typeof checkAgentCard10>[0]),
    refusesVersion: (requested) => (speaks10(requested) ? undefined : versionNotSupported(requested)),
    contentTypeError: (reason) => A2AError.contentTypeNotSupported({ reason }),
    rest: rest10,
    // Loaded by the gRPC server alone: an agent that serves no gRPC loads no protobuf code.
    grpc: () => import('./grpc.js').then((module) => module.grpc10),
  };
}

/** `options.extendedCard`, checked: it is for authenticated callers of 1.0. */
function checkedExtendedCard(options: Options10 & { readonly auth?: AuthOptions }): ExtendedCardOption | undefined {
  const { extendedCard } = options;
  if (extendedCard === undefined) return undefined;
  if (typeof extendedCard !== 'function' && (extendedCard === null || typeof extendedCard !== 'object')) {
    throw new TypeError('a2aRouter: options.extendedCard must be card fields or a function of the caller that gives them');
  }
  if (!options.auth) throw new TypeError('a2aRouter: options.extendedCard is for authenticated callers: it needs options.auth');
  if (options.protocol10 === false)
    throw new TypeError('a2aRouter: options.extendedCard is served over A2A 1.0, which protocol10: false turns off');
  return extendedCard;
}

/** Whether `A2A-Version` asks for 1.0 (a patch number is not considered, spec 1.0 3.6). */
function speaks10(requested: string | undefined): boolean {
  return requested !== undefined && /^1\.0(\.\d+)?$/.test(requested);
}

/**
 * -32009 for a call to the 1.0 endpoint in another version. Without `A2A-Version` a call is 0.3's
 * (spec 1.0 3.6.2), which this endpoint does not serve: the 0.3 endpoint does.
 */
function versionNotSupported(requested: string | undefined): A2AError {
  const reason =
    requested === undefined
      ? 'no A2A-Version header: a call without one is an A2A 0.3 call (spec 1.0 3.6.2); this endpoint serves 1.0, so send A2A-Version: 1.0'
      : `A2A-Version ${requested} is not served here; this endpoint serves 1.0`;
  return new A2AError(
    ErrorCode10.VersionNotSupported as ErrorCode,
    'Version not supported',
    { requested: requested ?? '', reason },
    'VERSION_NOT_SUPPORTED',
  );
}

export type { AgentCard10Input } from './card.js';
