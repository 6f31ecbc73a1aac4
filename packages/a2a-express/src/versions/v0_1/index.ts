// A2A 0.1.0 as a plug-in: its methods, its errors (the kit's codes are 0.1.0's), its push body.
import type { ProtocolVersion } from '../../core/protocol-version.js';
import { PROTOCOL_NAME_01 } from './mapping.js';
import { methods } from './methods.js';
import { pushBody01 } from './push-body.js';

export const protocol01: ProtocolVersion = { name: PROTOCOL_NAME_01, methods, pushBody: pushBody01 };

export { prepareCard, type AgentCardInput } from './card.js';
