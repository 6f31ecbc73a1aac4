#!/usr/bin/env node
// Derives the project's JSON Schema from the published A2A 0.1.0 schema by applying, one by one,
// the fixes listed in schema/SCHEMA-FIXES.md (where the published schema is looser than the
// specification text). The result is committed; run this only to regenerate it:
//
//   node packages/a2a-types/scripts/derive-schema.mjs <path/to/a2a-0.1.0.schema.json>
//
// Every fix is a function of its own so that a reviewer can match each one to its entry in
// SCHEMA-FIXES.md and to the test that shows it (test/schema-fixes.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaEditor } from './schema-edits.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const source = process.argv[2] ?? join(here, '../../../../shared/spec/a2a-0.1.0.schema.json');
const target = join(here, '../schema/a2a-0.1.0.schema.json');

const schema = JSON.parse(readFileSync(source, 'utf8'));
const defs = schema.$defs;
const nullable = (s) => ({ anyOf: [s, { type: 'null' }] });

const { set, apply } = schemaEditor(schema);
const requestDefs = Object.keys(defs).filter((name) => /Request$/.test(name) && defs[name].properties?.method);
const responseDefs = Object.keys(defs).filter((name) => /Response$/.test(name));

const fixes = {
  // 1. tasks/sendSubscribe is a request like the others.
  'F1 A2ARequest lists SendTaskStreamingRequest'() {
    set('/$defs/A2ARequest/oneOf', [...defs.A2ARequest.oneOf, { $ref: '#/$defs/SendTaskStreamingRequest' }]);
  },
  // 2. Spec 6.4 and 6.7: a message and an artifact MUST contain at least one part.
  'F2 parts hold at least one part'() {
    set('/$defs/Message/properties/parts/minItems', 1);
    set('/$defs/Artifact/properties/parts/minItems', 1);
  },
  // 3. Spec 6.6: exactly one of bytes/uri when content is sent; both may be absent for a reference.
  'F3 FileContent has not both bytes and uri'() {
    set('/$defs/FileContent/not', {
      required: ['bytes', 'uri'],
      properties: { bytes: { type: 'string' }, uri: { type: 'string' } },
    });
    // Read by a2a-types' validators: `not` alone would only say "must NOT be valid".
    set('/$defs/FileContent/x-errorMessage', 'must not have both bytes and uri');
  },
  // 4. Spec 6.5.3: data is a JSON object or an array.
  'F4 DataPart.data may be an array'() {
    set('/$defs/DataPart/properties/data', { title: 'Data', anyOf: [{ type: 'object' }, { type: 'array' }] });
  },
  // 5. TaskIdParams carried the title of TaskQueryParams.
  'F5 TaskIdParams has its own title'() {
    set('/$defs/TaskIdParams/title', 'TaskIdParams');
  },
  // 6. Spec 7.1.1, 7.3.1: historyLength is a count of messages.
  'F6 historyLength is not negative'() {
    for (const name of ['TaskSendParams', 'TaskQueryParams']) {
      set(`/$defs/${name}/properties/historyLength`, nullable({ type: 'integer', minimum: 0 }));
    }
  },
  // 7. Spec 6.8: the webhook URL is absolute; http(s) only (HTTPS in production, checked by the server).
  'F7 PushNotificationConfig.url is an absolute http(s) URL'() {
    set('/$defs/PushNotificationConfig/properties/url', {
      title: 'Url',
      type: 'string',
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
    });
  },
  // 8. Spec 8.2: the A2A errors -32005 ... -32011 get definitions like -32001 ... -32004.
  'F8 error definitions for -32005 to -32011'() {
    const errors = [
      ['ContentTypeNotSupportedError', -32005, 'Incompatible content types'],
      ['StreamingNotSupportedError', -32006, 'Streaming is not supported'],
      ['AuthenticationRequiredError', -32007, 'Authentication required'],
      ['AuthorizationFailedError', -32008, 'Authorization failed'],
      ['InvalidTaskStateError', -32009, 'Invalid task state for operation'],
      ['RateLimitExceededError', -32010, 'Rate limit exceeded'],
      ['ResourceUnavailableError', -32011, 'A required resource is unavailable'],
    ];
    for (const [title, code, message] of errors) {
      set(`/$defs/${title}`, {
        title,
        type: 'object',
        properties: {
          code: { const: code, default: code, title: 'Code', type: 'integer' },
          message: { default: message, title: 'Message', type: 'string' },
          data: { anyOf: [{}, { type: 'null' }], default: null, title: 'Data' },
        },
        required: ['code', 'message'],
      });
    }
  },
  // 9. Spec 6.5: `type` is the mandatory discriminator of a part. The published schema lets a
  //    part without `type` pass as a TextPart. With `type` required, Part becomes a oneOf with an
  //    OpenAPI discriminator, so an unknown type gets one clear error instead of three.
  'F9 a part must name its type'() {
    for (const name of ['TextPart', 'FilePart', 'DataPart']) set(`/$defs/${name}/required`, ['type', ...defs[name].required]);
    set('/$defs/Part', {
      title: 'Part',
      type: 'object',
      discriminator: { propertyName: 'type' },
      required: ['type'],
      oneOf: [{ $ref: '#/$defs/TextPart' }, { $ref: '#/$defs/FilePart' }, { $ref: '#/$defs/DataPart' }],
    });
  },
  // 10. Spec 6.1: a task carries `history` when the client asks for it.
  'F10 Task has history'() {
    set('/$defs/Task/properties/history', nullable({ type: 'array', items: { $ref: '#/$defs/Message' } }));
  },
  // 11. Spec 7.1.1: sessionId is `string | null`.
  'F11 TaskSendParams.sessionId may be null'() {
    set('/$defs/TaskSendParams/properties/sessionId', nullable({ type: 'string' }));
  },
  // 12. Spec 6.2: timestamp is `string | null`, an ISO 8601 date-time. ISO 8601 lets the UTC
  //     offset be left out, and the reference server does (2025-04-02T16:53:29.301828), which
  //     JSON Schema's RFC 3339 `date-time` refuses: `iso-date-time` accepts both.
  'F12 TaskStatus.timestamp may be null and is an ISO 8601 date-time'() {
    set('/$defs/TaskStatus/properties/timestamp', nullable({ type: 'string', format: 'iso-date-time' }));
  },
  // 13. Spec 6.7: index is a non-negative integer.
  'F13 Artifact.index is not negative'() {
    set('/$defs/Artifact/properties/index/minimum', 0);
  },
  // 14. Spec 6.11 / JSON-RPC 2.0: `jsonrpc` MUST be "2.0" (the schema does not require it); an id
  //     is a string, a number or null (JSON-RPC allows any number; the schema said integer), and
  //     a response must carry one.
  'F14 JSON-RPC envelopes require jsonrpc and take any number as id'() {
    const id = { anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'null' }], title: 'Id' };
    for (const name of [...requestDefs, 'JSONRPCRequest']) {
      set(`/$defs/${name}/required`, ['jsonrpc', ...defs[name].required.filter((r) => r !== 'jsonrpc')]);
      set(`/$defs/${name}/properties/id`, id);
    }
    set('/$defs/JSONRPCMessage/properties/id', id);
    // A response always echoes the request's id (null when it could not be read).
    for (const name of [...responseDefs, 'JSONRPCResponse']) {
      set(`/$defs/${name}/properties/id`, id);
      set(`/$defs/${name}/required`, ['jsonrpc', 'id', ...(defs[name].required ?? [])]);
    }
    // A request's params, when present, are structured (JSON-RPC 2.0 section 4.2).
    set('/$defs/JSONRPCRequest/properties/params', {
      anyOf: [{ type: 'object' }, { type: 'array' }, { type: 'null' }],
      title: 'Params',
    });
  },
  // 15. Spec 6.10: pushNotificationConfig is `PushNotificationConfig | null`.
  'F15 TaskPushNotificationConfig.pushNotificationConfig may be null'() {
    set('/$defs/TaskPushNotificationConfig/properties/pushNotificationConfig', nullable({ $ref: '#/$defs/PushNotificationConfig' }));
  },
  // 16. Spec 5.5: the card's url is absolute.
  'F16 AgentCard.url is an absolute URL'() {
    set('/$defs/AgentCard/properties/url/format', 'uri');
  },
};

apply(fixes, {
  title: 'A2A Protocol Schema 0.1.0 (a2a-express-kit)',
  description:
    'The published A2A 0.1.0 JSON Schema with the fixes listed in SCHEMA-FIXES.md, so that it says what the specification text says.',
});
writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
