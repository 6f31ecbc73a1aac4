// A2A 0.1.0 as a plug-in: its methods, its errors (the kit's codes are 0.1.0's), its push body,
// served at the mount itself. Always served: it has no option of its own.
import { A2AError, ErrorCode } from 'a2a-types';
import type { ProtocolVersion, ServableVersion } from '../../protocol/version.js';
import { errorTo01, PROTOCOL_NAME_01, pushBodyTo01 } from './mapping.js';
import { methods01 } from './methods.js';

const protocol01: ProtocolVersion = {
  name: PROTOCOL_NAME_01,
  methods: methods01,
  wireError: errorTo01,
  pushBody: pushBodyTo01,
  // A newer version's method sent here says where that version is served, rather than only
  // that 0.1.0 has no such method.
  methodNotFound(method, servedBy) {
    if (!servedBy) return A2AError.methodNotFound(method);
    return new A2AError(ErrorCode.MethodNotFound, undefined, {
      method,
      reason: `${method} is an A2A ${servedBy.name} method; this endpoint speaks A2A 0.1.0.${servedBy.foundAt ? ` ${servedBy.foundAt}` : ''}`,
    });
  },
};

/** 0.1.0 at the mount itself: its card at `/.well-known/agent.json`, JSON-RPC at `/` (spec 0.1.0 5). */
export const version01: ServableVersion = {
  protocol: protocol01,
  configure: () => ({
    path: '/',
    inputModes: [],
    endpoint: () => ({ version: protocol01, path: '/', cardPaths: ['/.well-known/agent.json'], card: (agentCard) => agentCard }),
  }),
};
