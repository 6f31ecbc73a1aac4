// A2A 0.3 as a plug-in: its methods, its error codes, its push body and its card.
import type { ProtocolVersion } from '../../core/protocol-version.js';
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

export { agentCard03, checkAgentCard03, endpointUrl03, type AgentCard03Input } from './card.js';
export { errorTo03 } from './mapping.js';
