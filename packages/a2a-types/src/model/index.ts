// `a2a-types/model`: what a layer that speaks no protocol version needs (the kit's core, stores
// and push delivery): the shapes agents write, the errors by reason, and the checks of a
// handler's messages and artifacts and of an author's card. No version's wire types are here:
// they are the root (0.1.0), `a2a-types/v0.3` and `a2a-types/v1.0`.
export * from './shapes.js';
export { setOwnField } from './own-field.js';
export * from '../errors.js';
export type { ValidationIssue, Validator } from '../compile.js';
export { formatIssues, validateAgentCard, validateArtifact, validateMessage } from '../validators.js';
