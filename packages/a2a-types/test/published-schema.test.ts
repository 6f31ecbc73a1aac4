// The published A2A 0.1.0 schema, rebuilt from ours by undoing the recorded fixes, is exactly the
// one published: its canonical JSON (keys sorted) hashes to the published file's.
import { canonicalSha256 } from './canonical.js';
import { publishedSchema, publishedSchemaValidator, validateMessage } from '../src/index.js';

// sha256 of the canonical JSON of the published a2a-0.1.0.schema.json (see SCHEMA-FIXES.md).
const PUBLISHED_SHA256 = 'eabaca3689102b6ff34302c2e8bdad78111d0f9c3558ad5672724fbac2181980';

describe('the published schema, rebuilt', () => {
  test('is the published file, to the byte of its canonical form', () => {
    expect(canonicalSha256(publishedSchema())).toBe(PUBLISHED_SHA256);
    expect(publishedSchema()).not.toHaveProperty('x-published');
  });

  test('keeps the published rules where ours are looser: a data part holds an object, a push config is an object', () => {
    const streamEvent = publishedSchemaValidator('SendTaskStreamingResponse');
    const withData = (data: unknown) => ({ jsonrpc: '2.0', id: 1, result: { id: 't', artifact: { parts: [{ type: 'data', data }] } } });
    expect(streamEvent(withData({ rows: [1, 2] }))).toBe(true);
    expect(streamEvent(withData([1, 2]))).toBe(false);
    expect(validateMessage({ role: 'agent', parts: [{ type: 'data', data: [1, 2] }] })).toBe(true); // ours follows spec 6.5.3
    const getConfig = publishedSchemaValidator('GetTaskPushNotificationResponse');
    expect(getConfig({ jsonrpc: '2.0', id: 1, result: { id: 't', pushNotificationConfig: null } })).toBe(false);
    expect(getConfig.issues.map((i) => i.path)).toContain('/result/pushNotificationConfig');
  });

  test('an unknown definition is an error that names it', () => {
    expect(() => publishedSchemaValidator('NoSuchThing')).toThrow('a2a-types: no schema definition NoSuchThing');
  });
});
