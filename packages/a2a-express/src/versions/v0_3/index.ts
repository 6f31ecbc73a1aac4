// A2A 0.3 as a plug-in: its methods, its error codes, its push body and its card.
import type { ProtocolVersion } from '../../core/protocol-version.js';
import { errorTo03, PROTOCOL_NAME_03, taskNotification03 } from './mapping.js';
import { methods03 } from './methods.js';

export const protocol03: ProtocolVersion = {
  name: PROTOCOL_NAME_03,
  methods: methods03,
  wireError: errorTo03,
  pushBody: (record, event) => taskNotification03(record, event.status),
};

export { agentCard03, checkAgentCard03, endpointUrl03, type AgentCard03Input } from './card.js';
export { errorTo03 } from './mapping.js';
