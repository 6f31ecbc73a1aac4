// What the validators compiled at build time (src/compiled/, by scripts/generate-validators.mjs)
// take from outside their own code: Ajv's code names them with `require`, which an ES module has
// not, and the build points each at an export of this module instead.

/** The formats of ajv-formats, as `addFormats` gives them to an Ajv instance ("full" mode). */
export { fullFormats } from 'ajv-formats/dist/formats.js';
