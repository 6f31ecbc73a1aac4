#!/usr/bin/env node
// Derives the project's A2A 0.3 JSON Schema from the published one by applying, one by one, the
// fixes listed in schema/SCHEMA-FIXES.md (section "0.3"). The 0.3 binding validates requests
// against the result; what the kit sends is checked against the published schema, rebuilt from
// the records under "x-published". The result is committed; run this only to regenerate it:
//
//   node packages/a2a-types/scripts/derive-schema-0.3.mjs <path/to/a2a-0.3.0.schema.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaEditor } from './schema-edits.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const source = process.argv[2] ?? join(here, '../../../../shared/spec/a2a-0.3.0.schema.json');
const target = join(here, '../schema/a2a-0.3.0.schema.json');

const schema = JSON.parse(readFileSync(source, 'utf8'));
const defs = schema.definitions;
const { set, apply } = schemaEditor(schema);

const fixes = {
  // 1. A message carries content: the handler contract (a 0.1.0 message has at least one part,
  //    spec 0.1.0 6.4) holds for messages that arrive over 0.3 too.
  'G1 a message holds at least one part'() {
    set('/definitions/Message/properties/parts/minItems', 1);
  },
  // 2. A file is given by its bytes or by its URI: with both, `anyOf` matched either branch and
  //    the other field went unnoticed.
  'G2 a file has not both bytes and uri'() {
    set('/definitions/FileWithBytes/not', { required: ['uri'] });
    set('/definitions/FileWithBytes/x-errorMessage', 'must not have both bytes and uri');
    set('/definitions/FileWithUri/not', { required: ['bytes'] });
    set('/definitions/FileWithUri/x-errorMessage', 'must not have both bytes and uri');
  },
  // 3. `kind` is the discriminator of a part: an unknown kind gets one clear error instead of
  //    one per branch.
  'G3 a part is chosen by its kind'() {
    set('/definitions/Part', {
      type: 'object',
      discriminator: { propertyName: 'kind' },
      required: ['kind'],
      oneOf: [{ $ref: '#/definitions/TextPart' }, { $ref: '#/definitions/FilePart' }, { $ref: '#/definitions/DataPart' }],
    });
  },
  // 4. historyLength is a count of messages.
  'G4 historyLength is not negative'() {
    set('/definitions/TaskQueryParams/properties/historyLength/minimum', 0);
    set('/definitions/MessageSendConfiguration/properties/historyLength/minimum', 0);
  },
  // 5. The webhook URL is absolute, http(s) (HTTPS in production, checked by the server).
  'G5 PushNotificationConfig.url is an absolute http(s) URL'() {
    set('/definitions/PushNotificationConfig/properties/url/format', 'uri');
    set('/definitions/PushNotificationConfig/properties/url/pattern', '^[Hh][Tt][Tt][Pp][Ss]?://');
  },
};

if (!defs.Message || !defs.FileWithBytes) throw new Error(`${source} is not the A2A 0.3 schema`);
apply(fixes, {
  title: 'A2A Protocol Schema 0.3.0 (a2a-express-kit)',
  description: 'The published A2A 0.3.0 JSON Schema with the fixes listed in SCHEMA-FIXES.md (section 0.3).',
});
writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
