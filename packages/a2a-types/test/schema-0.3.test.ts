// The 0.3 schema the 0.3 binding validates requests against: the published one plus the fixes
// G1-G5 (SCHEMA-FIXES.md), each shown failing on the published schema and holding on ours; and
// the published schema rebuilt from ours, exact to the hash of its canonical JSON.
import { canonicalSha256 } from './canonical.js';
import {
  publishedSchema03,
  publishedSchemaValidator03,
  validateMessageSendParams,
  validateTaskPushNotificationConfig,
  validateTaskQueryParams,
} from '../src/v03/index.js';

// sha256 of the canonical JSON (keys sorted) of the published a2a-0.3.0.schema.json.
const PUBLISHED_SHA256 = '4fa158d64ec2b6d7608fa258241cb03f24e745421ad384ffa0fcfe3c14d54f57';

const send = (parts: unknown[], configuration?: unknown) => ({
  message: { kind: 'message', messageId: 'm-1', role: 'user', parts },
  ...(configuration ? { configuration } : {}),
});
const text = { kind: 'text', text: 'hi' };
const publishedParams = () => publishedSchemaValidator03('MessageSendParams');

describe('the project 0.3 schema (published 0.3 schema + G1-G5)', () => {
  test('the published schema rebuilt from ours is the published file', () => {
    expect(canonicalSha256(publishedSchema03())).toBe(PUBLISHED_SHA256);
    expect(publishedSchema03()).not.toHaveProperty('x-published');
  });

  test('a well-formed message passes both', () => {
    expect(validateMessageSendParams(send([text]))).toBe(true);
    expect(publishedParams()(send([text]))).toBe(true);
  });

  test('G1 a message holds at least one part', () => {
    expect(publishedParams()(send([]))).toBe(true);
    expect(validateMessageSendParams(send([]))).toBe(false);
    expect(validateMessageSendParams.issues[0]).toMatchObject({ path: '/message/parts', keyword: 'minItems' });
  });

  test('G2 a file has not both bytes and uri', () => {
    const both = send([{ kind: 'file', file: { bytes: 'aGk=', uri: 'https://x.example/f' } }]);
    expect(publishedParams()(both)).toBe(true);
    expect(validateMessageSendParams(both)).toBe(false);
    expect(validateMessageSendParams.issues[0]).toMatchObject({
      path: '/message/parts/0/file',
      message: 'must not have both bytes and uri',
    });
    expect(validateMessageSendParams(send([{ kind: 'file', file: { uri: 'https://x.example/f' } }]))).toBe(true);
  });

  test('G3 an unknown part kind gets one error naming the tag', () => {
    const unknown = send([{ kind: 'video', text: 'x' }]);
    expect(publishedParams()(unknown)).toBe(false);
    expect(publishedParams().issues.length).toBeGreaterThan(1);
    expect(validateMessageSendParams(unknown)).toBe(false);
    expect(validateMessageSendParams.issues).toEqual([expect.objectContaining({ path: '/message/parts/0', keyword: 'discriminator' })]);
  });

  test('G4 historyLength is not negative', () => {
    expect(publishedSchemaValidator03('TaskQueryParams')({ id: 't', historyLength: -1 })).toBe(true);
    expect(validateTaskQueryParams({ id: 't', historyLength: -1 })).toBe(false);
    expect(validateMessageSendParams(send([text], { historyLength: -2 }))).toBe(false);
    expect(validateMessageSendParams.issues[0]).toMatchObject({ path: '/configuration/historyLength', keyword: 'minimum' });
  });

  test('G5 a webhook URL is an absolute http(s) URL', () => {
    const config = (url: string) => ({ taskId: 't', pushNotificationConfig: { url } });
    expect(publishedSchemaValidator03('TaskPushNotificationConfig')(config('ftp://x'))).toBe(true);
    expect(validateTaskPushNotificationConfig(config('ftp://x'))).toBe(false);
    expect(validateTaskPushNotificationConfig(config('/relative'))).toBe(false);
    expect(validateTaskPushNotificationConfig(config('https://hooks.example/a2a'))).toBe(true);
  });
});
