// The core's one call shape: A2A 1.0 operations with params in the kit's model, run through
// `AgentOperations` by any binding. First called directly (no Express, no JSON-RPC), then through
// every version and binding with one authorize rule written in 1.0's words.
import { A2AError } from 'a2a-types';
import { rpc, serverPool } from 'a2a-testing';
import { createAgentCore, type AgentCore } from '../src/agent-core.js';
import type { CallContext } from '../src/core/call.js';
import type { TaskEventStream } from '../src/core/event-feed.js';
import type { TaskEvent } from '../src/model/task.js';
import { apiKey, artifact, completed, inputRequired, type AuthorizeHook, type TaskHandler, textOf } from '../src/index.js';
import { appWith, message03, message10, silent, testCard } from './helpers.js';

/** Echoes the text as an artifact and completes; `wait` waits for input instead (a task that can be canceled). */
const handler: TaskHandler = async function* (ctx) {
  const text = textOf(ctx.message);
  if (text === 'wait') {
    yield inputRequired('and?');
    return;
  }
  yield artifact(`echo: ${text}`);
  yield completed();
};

describe('the neutral call shape, with no Express and no JSON-RPC', () => {
  let core: AgentCore;
  beforeAll(() => {
    core = createAgentCore(handler, { card: testCard, logger: silent });
  });
  afterAll(() => core.close());

  const context: CallContext = {
    principal: undefined,
    headers: {},
    origin: { protocol: 'none', binding: 'direct', method: 'none', params: undefined },
  };
  const message = (text: string) => ({ role: 'user' as const, parts: [{ type: 'text' as const, text }], messageId: `m-${text}` });

  test('SendMessage answers with the task in the core model', async () => {
    const record = await core.operations.call('SendMessage', { message: message('hello') }, context);
    expect(record.task.status.state).toBe('completed');
    expect(record.task.artifacts?.[0]?.parts).toEqual([{ type: 'text', text: 'echo: hello' }]);
    expect(record.history[0]).toMatchObject({ messageId: 'm-hello', parts: [{ type: 'text', text: 'hello' }] });
    const read = await core.operations.call('GetTask', { id: record.task.id }, context);
    expect(read.task).toEqual(record.task);
  });

  test('SendStreamingMessage answers with a stream of the core events, the task first', async () => {
    const stream: TaskEventStream = await core.operations.call('SendStreamingMessage', { message: message('streamed') }, context);
    const rendered: unknown[] = [];
    for await (const stored of stream) rendered.push(stream.render(stored));
    // The default view opens with the task (its snapshot, in the first event with the handler's first update).
    const [first, ...rest] = rendered;
    expect(first).toMatchObject({
      values: [{ value: { status: { state: 'working' } } }, { value: { artifact: { parts: [{ text: 'echo: streamed' }] } } }],
    });
    expect((rest.at(-1) as TaskEvent & { status: { state: string } }).status.state).toBe('completed');
  });

  test('an unknown task is an error by reason, whatever code a binding gives it', async () => {
    const failure = await core.operations.call('GetTask', { id: 'nowhere' }, context).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(A2AError);
    expect((failure as A2AError).reason).toBe('TASK_NOT_FOUND');
    const refused = await core.operations.call('CancelTask', { id: 'nowhere' }, context).catch((error: unknown) => error);
    expect((refused as A2AError).reason).toBe('TASK_NOT_FOUND');
  });
});

describe('one authorize rule in 1.0 words, on every version and binding', () => {
  const { serve, closeAll } = serverPool();
  afterAll(closeAll);

  /** Only admin cancels; only admin sends files. Written with 1.0's operations and the kit's model alone. */
  const rule: AuthorizeHook = ({ principal, operation, params }) => {
    if (operation === 'CancelTask') return principal.id === 'admin';
    if (operation === 'SendMessage') return principal.id === 'admin' || !params.message.parts.some((part) => part.type === 'file');
    return true;
  };

  async function agent() {
    const { app } = appWith(handler, {
      auth: { strategies: [apiKey({ keys: { 'key-for-admin': 'admin', 'key-for-bob-1': 'bob' } })], authorize: rule },
    });
    return (await serve(app)).url;
  }
  const bob = { 'x-api-key': 'key-for-bob-1' };
  const admin = { 'x-api-key': 'key-for-admin' };
  const V1 = { 'a2a-version': '1.0' };
  const file = { url: 'https://files.example/report.pdf', mediaType: 'application/pdf' };

  /** One binding: how it sends a text, a file and a cancel, and what its refusal looks like. */
  interface Binding {
    name: string;
    send(url: string, kind: 'text' | 'file', headers: Record<string, string>): Promise<{ status: number; taskId?: string; body: object }>;
    cancel(url: string, taskId: string, headers: Record<string, string>): Promise<{ status: number; body: object }>;
    refusal: object;
  }

  const rpcAnswer = async (url: string, method: string, params: unknown, headers: Record<string, string>) => {
    const answer = await rpc<{ id?: string; task?: { id: string } }>(url, method, params, { headers });
    return { status: answer.httpStatus, taskId: answer.result?.task?.id ?? answer.result?.id, body: answer };
  };
  const restAnswer = async (url: string, path: string, body: unknown, headers: Record<string, string>) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1, ...headers },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { task?: { id: string } };
    return { status: response.status, taskId: json.task?.id, body: json };
  };

  const bindings: Binding[] = [
    {
      name: '0.1.0 JSON-RPC',
      send: (url, kind, headers) =>
        rpcAnswer(
          url,
          'tasks/send',
          {
            id: `t-${Math.random()}`,
            message: {
              role: 'user',
              parts:
                kind === 'text' ? [{ type: 'text', text: 'wait' }] : [{ type: 'file', file: { uri: file.url, mimeType: file.mediaType } }],
            },
          },
          headers,
        ),
      cancel: (url, id, headers) => rpcAnswer(url, 'tasks/cancel', { id }, headers),
      refusal: { error: { code: -32008 } },
    },
    {
      name: '0.3 JSON-RPC',
      send: (url, kind, headers) =>
        rpcAnswer(
          `${url}/v0.3`,
          'message/send',
          {
            message:
              kind === 'text'
                ? message03('wait')
                : message03('', { parts: [{ kind: 'file', file: { uri: file.url, mimeType: file.mediaType } }] }),
          },
          headers,
        ),
      cancel: (url, id, headers) => rpcAnswer(`${url}/v0.3`, 'tasks/cancel', { id }, headers),
      refusal: { error: { code: -32008 } },
    },
    {
      name: '1.0 JSON-RPC',
      send: (url, kind, headers) =>
        rpcAnswer(
          `${url}/v1`,
          'SendMessage',
          { message: kind === 'text' ? message10('wait') : message10('', { parts: [file] }) },
          { ...V1, ...headers },
        ),
      cancel: (url, id, headers) => rpcAnswer(`${url}/v1`, 'CancelTask', { id }, { ...V1, ...headers }),
      refusal: { error: { code: -32000, data: [expect.objectContaining({ reason: 'PERMISSION_DENIED' })] } },
    },
    {
      name: '1.0 HTTP+JSON',
      send: (url, kind, headers) =>
        restAnswer(
          `${url}/v1`,
          '/message:send',
          { message: kind === 'text' ? message10('wait') : message10('', { parts: [file] }) },
          headers,
        ),
      cancel: (url, id, headers) => restAnswer(`${url}/v1`, `/tasks/${encodeURIComponent(id)}:cancel`, {}, headers),
      refusal: { error: { code: 403, status: 'PERMISSION_DENIED' } },
    },
  ];

  test.each(bindings)('$name: the rule refuses and allows the same calls, refusals with HTTP 403', async (binding) => {
    const url = await agent();
    // Bob may start a task with text, not with a file; admin may do both.
    const bobsTask = await binding.send(url, 'text', bob);
    expect(bobsTask.status).toBe(200);
    expect(bobsTask.taskId).toEqual(expect.any(String));
    const bobsFile = await binding.send(url, 'file', bob);
    expect(bobsFile.status).toBe(403);
    expect(bobsFile.body).toMatchObject(binding.refusal);
    expect((await binding.send(url, 'file', admin)).status).toBe(200);
    // Bob may not cancel, even his own task; admin cancels hers.
    const bobsCancel = await binding.cancel(url, bobsTask.taskId!, bob);
    expect(bobsCancel.status).toBe(403);
    expect(bobsCancel.body).toMatchObject(binding.refusal);
    const adminsTask = await binding.send(url, 'text', admin);
    expect((await binding.cancel(url, adminsTask.taskId!, admin)).status).toBe(200);
  });
});
