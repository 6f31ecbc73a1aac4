// One test per fix in SCHEMA-FIXES.md: each fails on the published schema and passes on ours.
import {
  a2aSchema,
  validateAgentCard,
  validateArtifact,
  validateJSONRPCRequest,
  validateMessage,
  validateSendTaskStreamingResponse,
  validateTask,
  validateTaskPushNotificationConfig,
  validateTaskQueryParams,
  validateTaskSendParams,
} from '../src/index.js';

const defs = (a2aSchema as { $defs: Record<string, Record<string, unknown>> }).$defs;
const text = { type: 'text', text: 'hi' };
const message = { role: 'user', parts: [text] };

describe('the project schema (published schema + SCHEMA-FIXES.md)', () => {
  test('F1 A2ARequest lists tasks/sendSubscribe', () => {
    expect(defs.A2ARequest!.oneOf).toContainEqual({ $ref: '#/$defs/SendTaskStreamingRequest' });
  });

  test('F2 a message and an artifact need at least one part', () => {
    expect(validateMessage({ role: 'user', parts: [] })).toBe(false);
    expect(validateMessage.issues[0]).toMatchObject({ path: '/parts', keyword: 'minItems' });
    expect(validateArtifact({ parts: [] })).toBe(false);
  });

  test('F3 a file has not both bytes and uri; one or neither is fine', () => {
    const file = (f: object) => ({ role: 'user', parts: [{ type: 'file', file: f }] });
    expect(validateMessage(file({ bytes: 'aGk=', uri: 'https://x' }))).toBe(false);
    expect(validateMessage.issues[0]).toMatchObject({ path: '/parts/0/file', message: 'must not have both bytes and uri' });
    expect(validateMessage(file({ bytes: 'aGk=' }))).toBe(true);
    expect(validateMessage(file({ uri: 'https://x' }))).toBe(true);
    expect(validateMessage(file({ name: 'ref.pdf' }))).toBe(true);
    expect(validateMessage(file({ bytes: 'aGk=', uri: null }))).toBe(true);
  });

  test('F4 a data part may hold an array', () => {
    expect(validateMessage({ role: 'agent', parts: [{ type: 'data', data: [{ a: 1 }] }] })).toBe(true);
    expect(validateMessage({ role: 'agent', parts: [{ type: 'data', data: 'text' }] })).toBe(false);
  });

  test('F5 TaskIdParams has its own title', () => {
    expect(defs.TaskIdParams!.title).toBe('TaskIdParams');
  });

  test('F6 historyLength is a non-negative integer or null', () => {
    for (const ok of [0, 5, null]) expect(validateTaskQueryParams({ id: 't', historyLength: ok })).toBe(true);
    for (const bad of [-1, 2.5]) {
      expect(validateTaskQueryParams({ id: 't', historyLength: bad })).toBe(false);
      expect(validateTaskSendParams({ id: 't', message, historyLength: bad })).toBe(false);
    }
  });

  test('F7 a webhook url is an absolute http(s) URL', () => {
    const config = (url: string) => ({ id: 't', pushNotificationConfig: { url } });
    expect(validateTaskPushNotificationConfig(config('https://client.example.com/hook'))).toBe(true);
    for (const bad of ['/relative', 'client.example.com/hook', 'ftp://x/y', 'javascript:alert(1)']) {
      expect(validateTaskPushNotificationConfig(config(bad))).toBe(false);
    }
  });

  test('F8 error definitions exist for -32005 to -32011', () => {
    const codes = Object.values(defs)
      .map((d) => (d.properties as { code?: { const?: number } } | undefined)?.code?.const)
      .filter((c): c is number => typeof c === 'number');
    for (let code = -32011; code <= -32001; code++) expect(codes).toContain(code);
  });

  test('F9 a part must name its type, and an unknown type gets one clear issue', () => {
    expect(validateMessage({ role: 'user', parts: [{ text: 'no type' }] })).toBe(false);
    expect(validateMessage({ role: 'user', parts: [{ type: 'image', text: 'x' }] })).toBe(false);
    expect(validateMessage.issues).toEqual([
      expect.objectContaining({ path: '/parts/0', keyword: 'discriminator', params: expect.objectContaining({ tagValue: 'image' }) }),
    ]);
  });

  test('F10 a task may carry its history', () => {
    expect(validateTask({ id: 't', status: { state: 'completed' }, history: [message] })).toBe(true);
    expect(validateTask({ id: 't', status: { state: 'completed' }, history: [{ role: 'user', parts: [] }] })).toBe(false);
  });

  test('F11 sessionId may be null', () => {
    expect(validateTaskSendParams({ id: 't', sessionId: null, message })).toBe(true);
  });

  test('F12 a status timestamp may be null, and is otherwise an ISO 8601 date-time', () => {
    expect(validateTask({ id: 't', status: { state: 'working', timestamp: null } })).toBe(true);
    expect(validateTask({ id: 't', status: { state: 'working', timestamp: '2024-03-15T10:00:05Z' } })).toBe(true);
    expect(validateTask({ id: 't', status: { state: 'working', timestamp: '2025-04-02T16:53:29.301828' } })).toBe(true);
    expect(validateTask({ id: 't', status: { state: 'working', timestamp: 'yesterday' } })).toBe(false);
  });

  test('F13 an artifact index is not negative', () => {
    expect(validateArtifact({ parts: [text], index: -1 })).toBe(false);
    expect(validateArtifact({ parts: [text], index: 0 })).toBe(true);
  });

  test('F14 requests need jsonrpc "2.0"; ids are strings, numbers or null; responses carry an id', () => {
    expect(validateJSONRPCRequest({ id: 1, method: 'tasks/get', params: {} })).toBe(false);
    expect(validateJSONRPCRequest({ jsonrpc: '2.0', id: 1.5, method: 'tasks/get' })).toBe(true);
    expect(validateJSONRPCRequest({ jsonrpc: '2.0', id: true, method: 'tasks/get' })).toBe(false);
    expect(validateJSONRPCRequest({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: 3 })).toBe(false);
    expect(validateSendTaskStreamingResponse({ jsonrpc: '2.0', result: { id: 't', status: { state: 'working' } } })).toBe(false);
  });

  test('F15 pushNotificationConfig may be null', () => {
    expect(validateTaskPushNotificationConfig({ id: 't', pushNotificationConfig: null })).toBe(true);
  });

  test('F16 the card url is absolute', () => {
    const card = { name: 'a', version: '1', capabilities: {}, skills: [] };
    expect(validateAgentCard({ ...card, url: 'https://agent.example.com/' })).toBe(true);
    expect(validateAgentCard({ ...card, url: '/a2a' })).toBe(false);
  });

  test('the spec samples validate', () => {
    expect(
      validateTaskSendParams({
        id: '129',
        sessionId: '8f01f3d172cd4396a0e535ae8aec6687',
        acceptedOutputModes: ['text'],
        message: { role: 'user', parts: [{ type: 'text', text: 'How much is the exchange rate for 1 USD to INR?' }] },
      }),
    ).toBe(true);
    expect(
      validateTask({
        id: '129',
        status: { state: 'completed', timestamp: '2025-04-02T16:53:29.301828' },
        artifacts: [{ parts: [{ type: 'text', text: 'The exchange rate for 1 USD to INR is 85.49.' }], index: 0 }],
        history: [],
      }),
    ).toBe(true);
  });

  test('validators keep the input intact: no defaults added, nothing removed or coerced', () => {
    const params = { id: 't', message: { role: 'user', parts: [{ type: 'text', text: 'x', extra: true }] }, historyLength: 2, custom: [1] };
    const before = JSON.stringify(params);
    expect(validateTaskSendParams(params)).toBe(true);
    expect(JSON.stringify(params)).toBe(before);
  });
});
