export * from './types.js';
export * from './errors.js';
export * from './validators.js';
