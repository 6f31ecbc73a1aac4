// The 1.0 schema the 1.0 binding validates requests against: the published bundle plus the fixes
// H0-H7 (SCHEMA-FIXES.md), each shown failing on the published bundle and holding on ours; requests
// read as ProtoJSON allows (snake_case names, int32 strings, enum numbers); and the published
// bundle rebuilt from ours, exact to the hash of its canonical JSON.
import { canonicalSha256 } from './canonical.js';
import {
  errorInfo,
  ERROR_BINDINGS_10,
  ErrorCode10,
  publishedSchema10,
  publishedSchemaValidator10,
  validateGetTaskRequest,
  validateListTaskPushNotificationConfigsRequest,
  validateListTasksRequest,
  validateSendMessageRequest,
  validateTaskPushNotificationConfig,
} from '../src/v10/index.js';

// sha256 of the canonical JSON (keys sorted) of the published a2a-1.0.schema.json.
const PUBLISHED_SHA256 = '0ef8e8ccd135abaff13510aa9caf7965b99bec1eab399d949da2ddd2955cf20d';

const send = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  message: { messageId: 'm-1', role: 'ROLE_USER', parts, ...extra },
});
const publishedSend = () => publishedSchemaValidator10('Send Message Request');

describe('the project 1.0 schema (published 1.0 bundle + H0-H7)', () => {
  test('the published bundle rebuilt from ours is the published file', () => {
    expect(canonicalSha256(publishedSchema10())).toBe(PUBLISHED_SHA256);
  });

  test('a well-formed message passes both', () => {
    expect(validateSendMessageRequest(send([{ text: 'hi' }]))).toBe(true);
    expect(publishedSend()(send([{ text: 'hi' }]))).toBe(true);
  });

  test('H1 required fields are required', () => {
    const noId = { message: { role: 'ROLE_USER', parts: [{ text: 'hi' }] } };
    expect(publishedSend()(structuredClone(noId))).toBe(true);
    expect(validateSendMessageRequest(noId)).toBe(false);
    expect(validateSendMessageRequest.issues[0]).toMatchObject({
      path: '/message',
      keyword: 'required',
      params: { missingProperty: 'messageId' },
    });
    expect(validateGetTaskRequest({})).toBe(false);
  });

  test('H2 a part has exactly one content', () => {
    const two = send([{ text: 'a', raw: 'YQ==' }]);
    expect(publishedSend()(structuredClone(two))).toBe(true);
    expect(validateSendMessageRequest(two)).toBe(false);
    expect(validateSendMessageRequest.issues[0]).toMatchObject({
      path: '/message/parts/0',
      message: 'must have exactly one of text, raw, url and data',
    });
    expect(validateSendMessageRequest(send([{ mediaType: 'text/plain' }]))).toBe(false);
    // Any JSON value is data, null included (google.protobuf.Value).
    expect(validateSendMessageRequest(send([{ data: null }]))).toBe(true);
  });

  test('H3 a message has parts and a role', () => {
    expect(publishedSend()(send([]))).toBe(true);
    expect(validateSendMessageRequest(send([]))).toBe(false);
    expect(validateSendMessageRequest.issues[0]).toMatchObject({ path: '/message/parts', keyword: 'minItems' });
    expect(validateSendMessageRequest(send([{ text: 'a' }], { role: 'ROLE_UNSPECIFIED' }))).toBe(false);
  });

  test('H4 history lengths and page sizes are in range', () => {
    expect(publishedSchemaValidator10('Get Task Request')({ id: 't', historyLength: -1 })).toBe(true);
    expect(validateGetTaskRequest({ id: 't', historyLength: -1 })).toBe(false);
    expect(validateListTasksRequest({ pageSize: 101 })).toBe(false);
    expect(validateListTasksRequest.issues[0]).toMatchObject({ path: '/pageSize', keyword: 'maximum' });
    expect(validateListTasksRequest({ pageSize: 0 })).toBe(false);
    expect(validateListTasksRequest({ pageSize: 100 })).toBe(true);
  });

  test('H6 a status filter is a state: a number outside the enum is refused, not read as no filter', () => {
    expect(publishedSchemaValidator10('List Tasks Request')({ status: 42 })).toBe(true);
    expect(validateListTasksRequest({ status: 42 })).toBe(false);
    expect(validateListTasksRequest.issues[0]).toMatchObject({ path: '/status', keyword: 'enum' });
    const fromQuery = { status: '3' };
    expect(validateListTasksRequest(fromQuery)).toBe(true);
    expect(fromQuery).toEqual({ status: 'TASK_STATE_COMPLETED' });
  });

  test('H7 raw bytes in URL-safe base64 are taken', () => {
    const urlSafe = send([{ raw: 'dGNr-_8=' }]);
    expect(publishedSend()(structuredClone(urlSafe))).toBe(false);
    expect(validateSendMessageRequest(urlSafe)).toBe(true);
  });

  test('booleans from a query string: only in boolean fields', () => {
    const query = { contextId: 'true', includeArtifacts: 'false' };
    expect(validateListTasksRequest(query)).toBe(true);
    expect(query).toEqual({ contextId: 'true', includeArtifacts: false });
  });

  test('H5 unknown request fields are ignored, as spec 1.0 5.7 asks', () => {
    const later = send([{ text: 'hi', tckUnknownField: 1 }], { fromALaterVersion: true });
    expect(publishedSend()(structuredClone(later))).toBe(false);
    expect(validateSendMessageRequest(later)).toBe(true);
  });

  test('requests are read as ProtoJSON: snake_case names, int32 strings, enum numbers, null as absent', () => {
    const params = {
      message: { message_id: 'm', role: 1, parts: [{ text: 'hi', media_type: 'text/plain' }], metadata: { keep_me: 1 } },
      configuration: { history_length: '3', return_immediately: true },
    };
    expect(validateSendMessageRequest(params)).toBe(true);
    expect(params).toEqual({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi', mediaType: 'text/plain' }], metadata: { keep_me: 1 } },
      configuration: { historyLength: 3, returnImmediately: true },
    });
    const nulls = { taskId: 't', pageSize: null, pageToken: null };
    expect(validateListTaskPushNotificationConfigsRequest(nulls)).toBe(true);
    expect(nulls).toEqual({ taskId: 't' });
    expect(validateSendMessageRequest(send([{ data: null }], { contextId: null }))).toBe(true);
    const list = { status: 3, page_size: '2', include_artifacts: true };
    expect(validateListTasksRequest(list)).toBe(true);
    expect(list).toEqual({ status: 'TASK_STATE_COMPLETED', pageSize: 2, includeArtifacts: true });
    const config = { task_id: 't', url: 'https://x.example/hook', authentication: { scheme: 'Bearer', credentials: 'c' } };
    expect(validateTaskPushNotificationConfig(config)).toBe(true);
    expect(config).toMatchObject({ taskId: 't' });
  });

  test('a field sent under both its names is refused, not guessed', () => {
    expect(validateGetTaskRequest({ id: 't', historyLength: 1, history_length: 2 })).toBe(false);
    expect(validateGetTaskRequest.issues[0]).toMatchObject({ path: '/history_length', keyword: 'duplicate' });
    // Deeper down, the issue names where: through objects, arrays and maps alike.
    const nested = send([{ text: 'a' }, { text: 'b', mediaType: 'text/plain', media_type: 'text/html' }], { message_id: 'm2' });
    expect(validateSendMessageRequest(nested)).toBe(false);
    expect(validateSendMessageRequest.issues.map((issue) => issue.path)).toEqual(['/message/message_id', '/message/parts/1/media_type']);
  });

  test('the published bundle is strict about what we send: no `final`, no `kind`, enums by name', () => {
    const stream = publishedSchemaValidator10('Stream Response');
    const status = { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-24T00:00:00.000Z' };
    expect(stream({ statusUpdate: { taskId: 't', contextId: 'c', status } })).toBe(true);
    expect(stream({ statusUpdate: { taskId: 't', contextId: 'c', status, final: true } })).toBe(false);
    expect(stream({ task: { id: 't', contextId: 'c', kind: 'task', status } })).toBe(false);
    expect(stream({ task: { id: 't', contextId: 'c', status: { state: 'completed' } } })).toBe(false);
  });

  test('every A2A error has its reason, HTTP status and gRPC status (spec 1.0 5.4)', () => {
    expect(ERROR_BINDINGS_10[ErrorCode10.TaskNotFound]).toEqual({ reason: 'TASK_NOT_FOUND', httpStatus: 404, grpcStatus: 'NOT_FOUND' });
    expect(ERROR_BINDINGS_10[ErrorCode10.VersionNotSupported]).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED', httpStatus: 400 });
    for (const code of Object.values(ErrorCode10)) expect(ERROR_BINDINGS_10[code]?.reason).toMatch(/^[A-Z_]+$/);
    expect(errorInfo('TASK_NOT_FOUND', { taskId: 't' })).toEqual({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
      metadata: { taskId: 't' },
    });
  });
});
