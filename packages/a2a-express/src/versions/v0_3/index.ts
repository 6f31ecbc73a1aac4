// A2A 0.3 as a plug-in: its methods, its error codes, its push body and its card.
import type { AuthOptions } from '../../core/auth.js';
import type { ProtocolVersion, VersionEndpoint } from '../../core/protocol-version.js';
import type { AgentCard as AgentCard03 } from 'a2a-types/v0.3';
import { agentCard03, checkAgentCard03, endpointUrl03, type AgentCard03Input } from './card.js';
import { errorTo03, PROTOCOL_NAME_03, taskNotification03 } from './mapping.js';
import { methods03 } from './methods.js';

export const protocol03: ProtocolVersion = {
  name: PROTOCOL_NAME_03,
  methods: methods03,
  wireError: errorTo03,
  pushBody: (record, event) => taskNotification03(record, event.status),
  // A2A 0.3 defines no notification; the official conformance kit expects a call without an id
  // that fails to be answered (spec 0.3 6.11: `id` is null where it cannot be read).
  answersFailedNotifications: true,
  // The official 0.3 SDK clients read a streaming call's answer as SSE only: an error sent as
  // JSON reaches them as "invalid content type", its code lost.
  streamsErrorsOfStreamingMethods: true,
};

/**
 * 0.3 on its own path (its three method names shared with 0.1.0 need their own endpoint), its
 * card at the root's `/.well-known/agent-card.json` and also below the endpoint, for a client
 * given the endpoint itself as the agent's base URL. The card is checked against the 0.3 schema
 * when the router is made.
 */
export function endpoint03(path: string, auth: AuthOptions | undefined, overrides: AgentCard03Input): VersionEndpoint {
  return {
    version: protocol03,
    path,
    cardPaths: ['/.well-known/agent-card.json', `${path}/.well-known/agent-card.json`],
    card: (agentCard) => agentCard03(agentCard, endpointUrl03(agentCard.url, path), auth, overrides),
    checkCard: (card) => checkAgentCard03(card as AgentCard03),
  };
}

export { endpointUrl03, type AgentCard03Input } from './card.js';
export { errorTo03 } from './mapping.js';
