#!/usr/bin/env node
// Derives the project's A2A 1.0 JSON Schema from the published bundle (generated from the 1.0
// proto; the conformance kit ships it) by applying, one by one, the fixes listed in
// schema/SCHEMA-FIXES.md (section "1.0"). The 1.0 binding validates requests against the result;
// what the kit sends is checked against the published bundle, rebuilt from the records under
// "x-published". The result is committed; run this only to regenerate it:
//
//   node packages/a2a-types/scripts/derive-schema-1.0.mjs <path/to/a2a-1.0.schema.json>
//
// The bundle's definitions refer to each other by file name ("lf.a2a.v1.Message.jsonschema.json");
// fix H0 points those references at the definitions themselves, so that one schema holds it all.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaEditor } from './schema-edits.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const source = process.argv[2] ?? join(here, '../../../../shared/spec/a2a-1.0.schema.json');
const target = join(here, '../schema/a2a-1.0.schema.json');

const schema = JSON.parse(readFileSync(source, 'utf8'));
const defs = schema.definitions;
const { set, apply } = schemaEditor(schema);

/** The definition a bundle file name stands for: its title without spaces is the proto name. */
const byProtoName = new Map(Object.keys(defs).map((title) => [title.replaceAll(' ', ''), title]));
function definitionOf(fileName) {
  const protoName = fileName
    .replace(/\.jsonschema\.json$/, '')
    .split('.')
    .pop();
  const title = byProtoName.get(protoName);
  if (!title) throw new Error(`no definition for ${fileName}`);
  return title;
}
const pointer = (title, ...rest) => `/definitions/${[title, ...rest].join('/')}`;

/** Every place below `node` (at JSON Pointer `at`) holding a `$ref` to a bundle file. */
function refsIn(node, at, found = []) {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) refsIn(node[i], `${at}/${i}`, found);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      const escaped = key.replaceAll('~', '~0').replaceAll('/', '~1');
      if (key === '$ref' && typeof value === 'string' && value.endsWith('.jsonschema.json')) found.push({ at: `${at}/$ref`, value });
      else refsIn(value, `${at}/${escaped}`, found);
    }
  }
  return found;
}

/** The request objects: their unknown fields are ignored (spec 1.0 5.7), not refused. */
const REQUEST_OBJECTS = [
  'Send Message Request',
  'Send Message Configuration',
  'Message',
  'Part',
  'Get Task Request',
  'List Tasks Request',
  'Cancel Task Request',
  'Subscribe To Task Request',
  'Task Push Notification Config',
  'Authentication Info',
  'Get Task Push Notification Config Request',
  'List Task Push Notification Configs Request',
  'Delete Task Push Notification Config Request',
  'Get Extended Agent Card Request',
];

const fixes = {
  // 0. One schema: references to a definition's file point at the definition.
  'H0 references point at the definitions'() {
    for (const { at, value } of refsIn(defs, '/definitions')) set(at, `#/definitions/${definitionOf(value)}`);
  },
  // 1. The fields the proto marks REQUIRED (spec 1.0 5.7) are required in a request.
  'H1 required fields are required'() {
    const required = {
      Message: ['messageId', 'role', 'parts'],
      'Send Message Request': ['message'],
      'Get Task Request': ['id'],
      'Cancel Task Request': ['id'],
      'Subscribe To Task Request': ['id'],
      'Task Push Notification Config': ['url'],
      'Authentication Info': ['scheme'],
      'Get Task Push Notification Config Request': ['taskId', 'id'],
      'Delete Task Push Notification Config Request': ['taskId', 'id'],
      'List Task Push Notification Configs Request': ['taskId'],
    };
    for (const [title, names] of Object.entries(required)) set(pointer(title, 'required'), names);
  },
  // 2. A part is exactly one of text, raw bytes, a URL or data (the proto's `oneof content`).
  'H2 a part has exactly one content'() {
    set(
      pointer('Part', 'oneOf'),
      ['text', 'raw', 'url', 'data'].map((name) => ({ required: [name] })),
    );
    set(pointer('Part', 'x-errorMessage'), 'must have exactly one of text, raw, url and data');
  },
  // 3. A message holds at least one part (REQUIRED repeated field, spec 5.7) and says who sent it.
  'H3 a message has parts and a role'() {
    set(pointer('Message', 'properties', 'parts', 'minItems'), 1);
    set(pointer('Message', 'properties', 'role', 'enum'), ['ROLE_USER', 'ROLE_AGENT']);
  },
  // 4. Counts are counts: a history length is not negative (spec 3.2.4), a page holds 1 to 100
  //    tasks (3.1.4).
  'H4 history lengths and page sizes are in range'() {
    for (const title of ['Get Task Request', 'List Tasks Request', 'Send Message Configuration']) {
      set(pointer(title, 'properties', 'historyLength', 'minimum'), 0);
    }
    set(pointer('List Tasks Request', 'properties', 'pageSize', 'minimum'), 1);
    set(pointer('List Tasks Request', 'properties', 'pageSize', 'maximum'), 100);
    set(pointer('List Task Push Notification Configs Request', 'properties', 'pageSize', 'minimum'), 1);
  },
  // 6. An enum in a request is one of its names (a number is read as its name first): a number
  //    outside the enum is refused rather than read as no filter.
  'H6 request enums are their names'() {
    const states = defs['Task Status'].properties.state.anyOf;
    const names = ['TASK_STATE_UNSPECIFIED', ...states.find((branch) => Array.isArray(branch.enum)).enum];
    set(pointer('List Tasks Request', 'properties', 'status', 'enum'), names);
  },
  // 7. Bytes may be in URL-safe base64, which ProtoJSON parsers read too.
  'H7 raw bytes in either base64 alphabet'() {
    set(pointer('Part', 'properties', 'raw', 'pattern'), '^[A-Za-z0-9+/_-]*={0,2}$');
  },
  // 5. A request field this version does not know is ignored (spec 5.7: SHOULD ignore), so that a
  //    client of a later minor version is served.
  'H5 unknown request fields are ignored'() {
    for (const title of REQUEST_OBJECTS) set(pointer(title, 'additionalProperties'), true);
  },
};

const derived = apply(fixes, {
  title: 'A2A 1.0 JSON Schema (project copy)',
  description:
    'The published A2A 1.0 JSON Schema bundle with the fixes in SCHEMA-FIXES.md (1.0) applied; requests are normalized to camelCase field names before they are checked. Generated by scripts/derive-schema-1.0.mjs.',
});
writeFileSync(target, `${JSON.stringify(derived, null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
