#!/usr/bin/env node
// Writes each JSON Schema of schema/ as a module of src/schemas/, at build time, for the
// validators to import: a JSON file read with node:module's createRequire loads only on Node,
// and JSON imported with `with { type: 'json' }` warns on Node 20. A module is read by every
// runtime and bundler. Nothing generated is committed: the root build runs this before tsc.
// A file whose text did not change is not written again, so tsc's incremental build keeps its work.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const packageRoot = join(import.meta.dirname, '..');
const out = join(packageRoot, 'src/schemas');

const SCHEMAS = {
  'a2a-0.1.0.schema.json': 'a2a-0.1.0.ts',
  'a2a-0.3.0.schema.json': 'a2a-0.3.0.ts',
  'a2a-1.0.schema.json': 'a2a-1.0.ts',
};

mkdirSync(out, { recursive: true });
for (const [json, module] of Object.entries(SCHEMAS)) {
  const text = readFileSync(join(packageRoot, 'schema', json), 'utf8');
  JSON.parse(text); // a schema that is not JSON fails the build here, not when a validator loads
  // Parsed when loaded, as the JSON file was: a string is quicker to load than the same object
  // written as code, and the type is what the validators took from createRequire.
  const source =
    `// Generated from schema/${json} by scripts/generate-schema-modules.mjs; not committed.\n` +
    `const schema: Readonly<Record<string, unknown>> = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))});\n` +
    'export default schema;\n';
  const target = join(out, module);
  if (existsSync(target) && readFileSync(target, 'utf8') === source) continue;
  writeFileSync(target, source);
}
