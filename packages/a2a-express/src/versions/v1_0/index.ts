// A2A 1.0 as a plug-in: its operations, its errors, its push body and its card.
import { A2AError, type ErrorCode } from 'a2a-types';
import { ErrorCode10, errorInfo, type AgentInterface } from 'a2a-types/v1.0';
import type { AgentCard } from 'a2a-types';
import type { AuthOptions, Principal } from '../../core/auth.js';
import type { ProtocolVersion, VersionEndpoint } from '../../core/protocol-version.js';
import { agentCard10, checkAgentCard10, type AgentCard10Input } from './card.js';
import { A2AError10, errorTo10, notification10, PROTOCOL_NAME_10, PROTOCOL_VERSION_10 } from './mapping.js';
import { methods10 } from './methods.js';
import { rest10 } from './rest.js';

export const protocol10: ProtocolVersion = {
  name: PROTOCOL_NAME_10,
  methods: methods10,
  wireError: errorTo10,
  pushBody: (record, event) => notification10(record, event.status),
  // Spec 1.0 4.3.3: a StreamResponse as application/a2a+json, with the client's credentials.
  pushDelivery: { contentType: 'application/a2a+json', credentialsInAuthorization: true },
  // 1.0's methods all return something: a call without an id is a client's mistake to hear of.
  answersFailedNotifications: true,
};

/** Fields a caller's extended card adds to the 1.0 card, or a function of the caller that gives them. */
export type ExtendedCardOption = AgentCard10Input | ((principal: Principal) => AgentCard10Input | Promise<AgentCard10Input>);

/** Another interface the card lists beside 1.0's (the 0.3 endpoint), as a URL for the request's mount. */
export type OtherInterface = { protocolVersion: string; url: (mountUrl: string) => string };

/**
 * 1.0 on its own path: JSON-RPC at `path` itself, HTTP+JSON below it (`${path}/message:send`, ...),
 * one URL for both interfaces; its card at `${path}/.well-known/agent-card.json` (for
 * a client given the interface itself as the agent's base URL). The card lists 1.0 JSON-RPC and
 * every other interface given; it is checked against the published 1.0 schema when the router is
 * made.
 */
export function endpoint10(
  path: string,
  auth: AuthOptions | undefined,
  overrides: AgentCard10Input,
  others: readonly OtherInterface[],
  extended?: ExtendedCardOption,
): VersionEndpoint {
  const card = (agentCard: AgentCard) => {
    const url = endpointUrl10(agentCard.url, path);
    const interfaces: AgentInterface[] = [
      { url, protocolBinding: 'JSONRPC', protocolVersion: PROTOCOL_VERSION_10 },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: PROTOCOL_VERSION_10 },
      ...others.map((other) => ({ url: other.url(agentCard.url), protocolBinding: 'JSONRPC', protocolVersion: other.protocolVersion })),
    ];
    const card10 = agentCard10(agentCard, interfaces, auth, overrides);
    if (extended) card10.capabilities = { ...card10.capabilities, extendedAgentCard: true };
    return card10;
  };
  return {
    version: protocol10,
    path,
    cardPaths: [`${path}/.well-known/agent-card.json`],
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
    contentTypeError: (reason) => errorTo10(A2AError.contentTypeNotSupported({ reason })),
    rest: rest10,
  };
}

/** Whether `A2A-Version` asks for 1.0 (a patch number is not considered, spec 1.0 3.6). */
export function speaks10(requested: string | undefined): boolean {
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
  return new A2AError10(ErrorCode10.VersionNotSupported as ErrorCode, 'Version not supported', [
    errorInfo('VERSION_NOT_SUPPORTED', { requested: requested ?? '', reason }),
  ]);
}

/** The 1.0 endpoint's URL: `path` (`'/v1'`) below the router's mount, whose URL is `mountUrl`. */
export function endpointUrl10(mountUrl: string, path: string): string {
  return new URL(path.slice(1), mountUrl.endsWith('/') ? mountUrl : `${mountUrl}/`).href;
}

export { PROTOCOL_VERSION_10, errorTo10 } from './mapping.js';
export type { AgentCard10Input } from './card.js';
