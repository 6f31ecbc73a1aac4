#!/usr/bin/env node
// Compiles the validators the package exports, at build time, with Ajv's standalone code: each
// set of validator-sets.mjs becomes a module of src/compiled/, plain functions that src/'s
// validators wrap. Ajv compiles a schema into source text and makes it a function with `new
// Function`, which Cloudflare Workers forbid (code generation from strings) and which cost a
// process 0.1 to 0.2 s per schema; compiled here, nothing is generated when a request is checked.
// Nothing generated is committed: the root build runs this before tsc. A file whose text did not
// change is not written again, so tsc's incremental build keeps its work.
//
// The code is what Ajv compiled at run time before, from the same options and schemas: the same
// checks, issue paths, messages and keywords. The published schemas' validators of the other
// definitions (publishedSchemaValidator and its 0.3 kin, the 1.0 ones no client call checks) and
// allIssues are still compiled when first called: the tools' checks, not an agent's.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { VALIDATOR_SETS } from './validator-sets.mjs';

const packageRoot = join(import.meta.dirname, '..');
const out = join(packageRoot, 'src/compiled');

/**
 * What Ajv's code asks for with `require` (its runtime helpers, ajv-formats' formats), which an ES
 * module cannot: each becomes a binding of src/ajv-runtime.ts. Anything else fails the build here
 * rather than a validator at run time.
 */
const RUNTIME = {
  'require("ajv-formats/dist/formats").fullFormats': 'fullFormats',
};

mkdirSync(out, { recursive: true });
for (const set of VALIDATOR_SETS) {
  const ajv = set.ajv({ source: true, esm: true });
  const exportNames = set.definitions.map((_, i) => `validator${i}`);
  let code = standaloneCode.default(ajv, Object.fromEntries(set.definitions.map((d, i) => [exportNames[i], set.ref(d)])));
  // Ajv exports each as `export const name = validateN;`: kept inside, and exported by definition below.
  const functionOf = {};
  code = code.replace(/export const (validator\d+) = (validate\d+);/g, (_, name, fn) => {
    functionOf[name] = fn;
    return '';
  });
  if (Object.keys(functionOf).length !== set.definitions.length) throw new Error(`${set.module}: not every definition was exported`);
  const used = new Set();
  code = code.replace(/require\("[^"]+"\)(\.[A-Za-z_$][\w$]*)?/g, (call) => {
    const binding = RUNTIME[call];
    if (!binding)
      throw new Error(`${set.module}: the compiled code asks for ${call}, which scripts/generate-validators.mjs does not provide`);
    used.add(binding);
    return binding;
  });
  const entries = set.definitions.map((d, i) => `    ${JSON.stringify(d)}: ${functionOf[exportNames[i]]},`).join('\n');
  const names = set.definitions.map((d) => JSON.stringify(d)).join(' | ');
  // The code runs when a validator of the set is first called, not when the module is loaded:
  // its schemas' copies and patterns are made then, and a program that loads the package and
  // checks nothing with the set (a client, a command line) pays only for reading the text.
  const source =
    `// Generated from ${set.from} by scripts/generate-validators.mjs; not committed.\n` +
    "// Ajv's standalone code is JavaScript: it is not type-checked.\n" +
    '// @ts-nocheck\n' +
    "import type { CompiledValidator } from '../compile.js';\n" +
    (used.size ? `import { ${[...used].sort().join(', ')} } from '../ajv-runtime.js';\n` : '') +
    `type Validators = { readonly [definition in ${names}]: CompiledValidator };\n` +
    `/** The definitions the set compiles. */\nexport const definitions: readonly string[] = ${JSON.stringify(set.definitions)};\n` +
    'let made: Validators | undefined;\n' +
    '/** The validation functions of the set, by definition, made on first call. */\n' +
    'export function validators(): Validators {\n' +
    '  made ??= make();\n' +
    '  return made;\n' +
    '}\n' +
    'function make(): Validators {\n' +
    `${code.replace(/^"use strict";/, '')}\n` +
    `  return {\n${entries}\n  };\n` +
    '}\n';
  write(set.module, source);
}

function write(name, source) {
  const target = join(out, name);
  if (existsSync(target) && readFileSync(target, 'utf8') === source) return;
  writeFileSync(target, source);
}
