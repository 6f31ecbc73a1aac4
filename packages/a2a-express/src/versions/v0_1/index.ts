// A2A 0.1.0 as a plug-in: its methods, its errors (the kit's codes are 0.1.0's), its push body.
import type { ProtocolVersion, VersionEndpoint } from '../../core/protocol-version.js';
import { errorTo01, PROTOCOL_NAME_01 } from './mapping.js';
import { methods } from './methods.js';
import { pushBody01 } from './push-body.js';

export const protocol01: ProtocolVersion = { name: PROTOCOL_NAME_01, methods, wireError: errorTo01, pushBody: pushBody01 };

/** 0.1.0 at the mount itself: its card at `/.well-known/agent.json`, JSON-RPC at `/` (spec 0.1.0 5). */
export function endpoint01(version: ProtocolVersion = protocol01): VersionEndpoint {
  return { version, path: '/', cardPaths: ['/.well-known/agent.json'], card: (agentCard) => agentCard };
}

export { prepareCard, type AgentCardInput } from './card.js';
