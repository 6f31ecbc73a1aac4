// The validators a2a-types compiles at build time (generate-validators.mjs), in sets: each an Ajv
// set up as the package set it up when it compiled them at run time (the same class, options,
// formats and schemas), and the definitions compiled from it. test/compiled-validators.test.ts
// compiles the same sets at run time to check that the generated code finds what Ajv's own does.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { publishedSchemaOf } from './schema-edits.mjs';

const schemaFolder = new URL('../schema/', import.meta.url);

/**
 * The options of every request validator. They keep the input intact: no defaults inserted, no
 * coercion, no removal of unknown properties (clients send extras such as
 * `acceptedOutputModes`, which the schema allows). allErrors stays off: the first failure of each
 * branch is enough to explain it, and it bounds the work done on hostile input.
 */
const REQUEST_OPTIONS = {
  strict: false,
  allErrors: false,
  discriminator: true,
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
  // Gives each error its parentSchema (a copy of the schema, in the generated code) so that a rule
  // can carry a readable message in `x-errorMessage` (see FileContent in the schema).
  verbose: true,
  // The schemas are this package's own files and what it derives from them, each checked against
  // its meta-schema by test/meta-schemas.test.ts.
  validateSchema: false,
};

/** The options of the published schemas' validators: every issue reported. As src/compile.ts's publishedValidators. */
const PUBLISHED_OPTIONS = { strict: false, allErrors: true, useDefaults: false, coerceTypes: false, validateSchema: false };

const schemaFile = (name) => JSON.parse(readFileSync(fileURLToPath(new URL(name, schemaFolder)), 'utf8'));

/** The bundle names each 1.0 definition's file; its references are to those names. As src/v10/validators.ts's. */
const fileNameOf = (title) => {
  const protoName = title.replaceAll(' ', '');
  const wellKnown = ['Struct', 'Value', 'Timestamp'].includes(protoName);
  return `${wellKnown ? 'google.protobuf' : 'lf.a2a.v1'}.${protoName}.jsonschema.json`;
};

/** `code` is Ajv's option for its output: `{ source: true, esm: true }` for standalone code. */
export const VALIDATOR_SETS = [
  {
    module: 'validators-0.1.0.ts',
    from: 'schema/a2a-0.1.0.schema.json',
    ajv(code = {}) {
      const ajv = new Ajv({ ...REQUEST_OPTIONS, code });
      addFormats.default(ajv, ['uri', 'iso-date-time']);
      ajv.addSchema(schemaFile('a2a-0.1.0.schema.json'), 'a2a');
      return ajv;
    },
    ref: (definition) => `a2a#/$defs/${definition}`,
    // src/validators.ts: the 0.1.0 requests, and the model's checks of a handler's messages and
    // artifacts and of an author's card.
    definitions: [
      'JSONRPCRequest',
      'TaskSendParams',
      'TaskQueryParams',
      'TaskIdParams',
      'TaskPushNotificationConfig',
      'AgentCard',
      'Message',
      'Artifact',
      'Task',
      'SendTaskStreamingResponse',
    ],
  },
  {
    module: 'validators-0.3.ts',
    from: 'schema/a2a-0.3.0.schema.json',
    ajv(code = {}) {
      const ajv = new Ajv({ ...REQUEST_OPTIONS, code });
      addFormats.default(ajv, ['uri', 'iso-date-time']);
      ajv.addSchema(schemaFile('a2a-0.3.0.schema.json'), 'a2a-0.3');
      return ajv;
    },
    ref: (definition) => `a2a-0.3#/definitions/${definition}`,
    // src/v03/validators.ts
    definitions: [
      'AgentCard',
      'MessageSendParams',
      'TaskQueryParams',
      'TaskIdParams',
      'TaskPushNotificationConfig',
      'GetTaskPushNotificationConfigParams',
      'DeleteTaskPushNotificationConfigParams',
    ],
  },
  {
    module: 'validators-1.0.ts',
    from: 'schema/a2a-1.0.schema.json',
    ajv(code = {}) {
      const ajv = new Ajv2020({ ...REQUEST_OPTIONS, code });
      // 1.0 timestamps (`statusTimestampAfter`) are RFC 3339 date-times.
      addFormats.default(ajv, ['uri', 'iso-date-time', 'date-time']);
      ajv.addSchema(schemaFile('a2a-1.0.schema.json'), 'a2a-1.0');
      return ajv;
    },
    ref: (title) => `a2a-1.0#/definitions/${encodeURIComponent(title)}`,
    // src/v10/validators.ts: each checks a request after normalizeProtoJson.
    definitions: [
      'Send Message Request',
      'Get Task Request',
      'List Tasks Request',
      'Cancel Task Request',
      'Subscribe To Task Request',
      'Task Push Notification Config',
      'Get Task Push Notification Config Request',
      'List Task Push Notification Configs Request',
      'Delete Task Push Notification Config Request',
      'Get Extended Agent Card Request',
    ],
  },
  {
    module: 'published-0.3.ts',
    from: 'the published schema rebuilt from schema/a2a-0.3.0.schema.json',
    ajv(code = {}) {
      const ajv = new Ajv({ ...PUBLISHED_OPTIONS, code });
      addFormats.default(ajv);
      ajv.addSchema(publishedSchemaOf(schemaFile('a2a-0.3.0.schema.json')), 'published');
      return ajv;
    },
    ref: (definition) => `published#/definitions/${definition}`,
    // What a2a-client holds every 0.3 answer to (src/client-03.ts): compiled at run time they cost
    // each client process some 0.15 s of CPU at its first call.
    definitions: ['AgentCard', 'Task', 'Message', 'TaskPushNotificationConfig', 'SendStreamingMessageSuccessResponse'],
  },
  {
    module: 'published-1.0.ts',
    from: 'the published bundle rebuilt from schema/a2a-1.0.schema.json',
    ajv(code = {}) {
      const ajv = new Ajv2020({ ...PUBLISHED_OPTIONS, code });
      addFormats.default(ajv);
      // The published definitions refer to each other by file name: each is added under its own.
      const defs = publishedSchemaOf(schemaFile('a2a-1.0.schema.json')).definitions;
      for (const [title, definition] of Object.entries(defs)) ajv.addSchema({ ...definition, $id: fileNameOf(title) });
      ajv.addSchema({ definitions: Object.fromEntries(Object.keys(defs).map((t) => [t, { $ref: fileNameOf(t) }])) }, 'published');
      return ajv;
    },
    ref: (title) => `published#/definitions/${encodeURIComponent(title)}`,
    // validateAgentCard10: an agent checks its 1.0 card against the published bundle when it is made.
    // The rest are what a2a-client holds every 1.0 answer to: compiled at run time they cost each
    // client process some 0.15 s of CPU at its first call (a command line, an orchestrator's start).
    definitions: [
      'Agent Card',
      'Send Message Response',
      'Stream Response',
      'Task',
      'List Tasks Response',
      'Task Push Notification Config',
      'List Task Push Notification Configs Response',
    ],
  },
];
