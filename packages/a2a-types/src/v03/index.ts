// A2A 0.3: `import { ... } from 'a2a-types/v0.3'`. Kept apart from the 0.1.0 entry point, whose
// names (Task, Message, Part, ...) it shares, and so that a 0.1.0-only user never compiles the
// 0.3 schema.
export * from './types.js';
export * from './validators.js';
export * from './convert.js';
export * from './proto-json.js';
