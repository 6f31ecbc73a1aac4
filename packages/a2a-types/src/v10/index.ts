// A2A 1.0: `import { ... } from 'a2a-types/v1.0'`. Kept apart from the 0.1.0 and 0.3 entry points,
// whose names (Task, Message, Part, ...) it shares, and so that an agent whose clients never speak
// 1.0 never compiles its schema.
export * from './types.js';
export * from './errors.js';
export * from './validators.js';
export { normalizeProtoJson } from './proto-json.js';
