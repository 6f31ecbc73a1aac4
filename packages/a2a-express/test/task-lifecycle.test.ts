import request from 'supertest';
import { A2AError, artifact, completed, failed, inputRequired, textOf, working, type TaskContext, type TaskHandler } from '../src/index.js';
import { InMemoryTaskStore } from '../src/store/index.js';
import { appWith, eventually, gate, request as rpcRequest, resultOf, sendRequest } from './helpers.js';

function caller(app: Parameters<typeof request>[0]) {
  return async (body: unknown) => (await request(app).post('/').set('Content-Type', 'application/json').send(JSON.stringify(body))).body;
}

describe('tasks/send', () => {
  test('creates the task with the client id, keeps the session id, answers when completed', async () => {
    const seen: TaskContext[] = [];
    const call = caller(
      appWith(async (ctx) => {
        seen.push(ctx);
        return completed(`echo: ${textOf(ctx.message)}`);
      }).app,
    );
    const task = resultOf(await call(sendRequest('task-abc-123', 'What is the capital of France?', { sessionId: 'session-xyz-789' })));
    expect(task).toMatchObject({
      id: 'task-abc-123',
      sessionId: 'session-xyz-789',
      status: { state: 'completed', message: { role: 'agent', parts: [{ type: 'text', text: 'echo: What is the capital of France?' }] } },
    });
    expect(new Date(task.status.timestamp!).toISOString()).toBe(task.status.timestamp);
    expect(seen[0]).toMatchObject({ sessionId: 'session-xyz-789', isNewTask: true, history: [] });
    expect(seen[0]!.signal.aborted).toBe(false);
  });

  test('a turn that ends by itself answers with the record it committed, without reading the store again', async () => {
    // With a networked store every read is a round trip; counted here on the real in-memory store.
    class CountingStore extends InMemoryTaskStore {
      reads = 0;
      override async get(taskId: string) {
        this.reads++;
        return super.get(taskId);
      }
    }
    const store = new CountingStore();
    const call = caller(
      appWith(
        async function* (ctx) {
          yield artifact(ctx.message.parts);
          yield completed('done');
        },
        { store },
      ).app,
    );
    const task = resultOf(await call(sendRequest('no-read', 'hello', { historyLength: 2 })));
    expect(task).toMatchObject({ status: { state: 'completed' }, artifacts: [{ parts: [{ text: 'hello' }] }] });
    expect(task.history?.map(textOf)).toEqual(['hello', 'done']);
    expect(store.reads).toBe(0);
    // A turn still working when sendWaitMs runs out is read from the store, as it stands then.
    const slow = gate();
    const waiting = caller(
      appWith(
        async function* () {
          yield working('busy');
          await slow.promise;
        },
        { store, sendWaitMs: 20 },
      ).app,
    );
    expect(resultOf(await waiting(sendRequest('read-back', 'x'))).status.state).toBe('working');
    expect(store.reads).toBe(1);
    slow.open();
    await store.close();
  });

  test('generates a session id when the client sends none', async () => {
    const call = caller(appWith(async () => completed()).app);
    const task = resultOf(await call(sendRequest('no-session', 'x')));
    expect(task.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test.each([
    ['failed', failed('cannot do that')],
    ['input-required', inputRequired('which one?')],
  ])('answers when the turn ends %s', async (state, update) => {
    const call = caller(appWith(async () => update).app);
    expect(resultOf(await call(sendRequest(`ends-${state}`, 'x'))).status.state).toBe(state);
  });

  test('a handler that ends without a final state completes its task', async () => {
    const call = caller(
      appWith(async function* () {
        yield artifact('partial');
      }).app,
    );
    const task = resultOf(await call(sendRequest('implicit', 'x')));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts).toEqual([{ parts: [{ type: 'text', text: 'partial' }], index: 0 }]);
  });

  test('a long-running handler answers with a working snapshot after sendWaitMs, then keeps running', async () => {
    const release = gate();
    const call = caller(
      appWith(
        async function* () {
          yield working('on it');
          await release.promise;
          yield artifact('late result');
          yield completed();
        },
        { sendWaitMs: 50 },
      ).app,
    );
    const first = resultOf(await call(sendRequest('slow', 'x')));
    expect(first.status).toMatchObject({ state: 'working', message: { parts: [{ text: 'on it' }] } });
    release.open();
    const finished = await eventually(async () => {
      const task = resultOf(await call(rpcRequest('tasks/get', { id: 'slow' })));
      return task.status.state === 'completed' ? task : undefined;
    });
    expect(finished.artifacts?.[0]?.parts).toEqual([{ type: 'text', text: 'late result' }]);
  });

  test('a send to an input-required task resumes it with the history of earlier turns', async () => {
    const contexts: TaskContext[] = [];
    const handler: TaskHandler = async (ctx) => {
      contexts.push(ctx);
      return ctx.isNewTask ? inputRequired('Which currency?') : completed(`got ${textOf(ctx.message)}`);
    };
    const call = caller(appWith(handler).app);
    const first = resultOf(await call(sendRequest('multi', 'How much is 100 USD?', { sessionId: 's1' })));
    expect(first.status.state).toBe('input-required');
    const second = resultOf(await call(sendRequest('multi', 'in GBP', { sessionId: 's1' })));
    expect(second.status).toMatchObject({ state: 'completed', message: { parts: [{ text: 'got in GBP' }] } });
    expect(contexts[1]).toMatchObject({ isNewTask: false, sessionId: 's1' });
    expect(contexts[1]!.history.map(textOf)).toEqual(['How much is 100 USD?', 'Which currency?']);
  });

  test('a completed task may be continued (reopened) on the same id', async () => {
    let turns = 0;
    const call = caller(appWith(async () => completed(`turn ${++turns}`)).app);
    resultOf(await call(sendRequest('reopen', 'draw a rabbit')));
    const again = resultOf(await call(sendRequest('reopen', 'make it red', { historyLength: 10 })));
    expect(again.status.message?.parts).toEqual([{ type: 'text', text: 'turn 2' }]);
    expect(again.history?.map(textOf)).toEqual(['draw a rabbit', 'turn 1', 'make it red', 'turn 2']);
  });

  test('a send to a working task is -32009', async () => {
    const release = gate();
    const call = caller(
      appWith(
        async () => {
          await release.promise;
          return completed();
        },
        { sendWaitMs: 20 },
      ).app,
    );
    expect(resultOf(await call(sendRequest('busy', 'first'))).status.state).toBe('working');
    const second = await call(sendRequest('busy', 'second', {}, 'two'));
    expect(second).toMatchObject({ id: 'two', error: { code: -32009, data: { taskId: 'busy', state: 'working' } } });
    release.open();
  });

  test.each([
    ['failed', async () => failed('no')],
    [
      'canceled',
      async function* (ctx: TaskContext) {
        yield working();
        await new Promise((r) => ctx.signal.addEventListener('abort', r));
      },
    ],
  ])('a send to a %s task is -32009', async (state, handler) => {
    const call = caller(appWith(handler as TaskHandler, { sendWaitMs: 20 }).app);
    await call(sendRequest(`ended-${state}`, 'x'));
    if (state === 'canceled') await call(rpcRequest('tasks/cancel', { id: 'ended-canceled' }));
    const again = await call(sendRequest(`ended-${state}`, 'again'));
    expect(again.error).toMatchObject({ code: -32009, data: { state } });
  });

  test("a send naming another session than the task's is -32602", async () => {
    const call = caller(appWith(async () => inputRequired('more?')).app);
    await call(sendRequest('sess', 'x', { sessionId: 'a' }));
    const other = await call(sendRequest('sess', 'y', { sessionId: 'b' }));
    expect(other.error).toMatchObject({ code: -32602, data: [{ path: '/sessionId' }] });
  });
});

describe('historyLength', () => {
  const handler: TaskHandler = async (ctx) => (ctx.isNewTask ? inputRequired('and?') : completed('ok'));
  const call = caller(appWith(handler).app);

  beforeAll(async () => {
    await call(sendRequest('hist', 'one'));
    await call(sendRequest('hist', 'two'));
  });

  test.each([undefined, 0])('historyLength %p on tasks/get → no history', async (historyLength) => {
    const task = resultOf(await call(rpcRequest('tasks/get', { id: 'hist', historyLength })));
    expect(task).not.toHaveProperty('history');
  });

  test('historyLength N on tasks/get → the last N messages, oldest first', async () => {
    const all = resultOf(await call(rpcRequest('tasks/get', { id: 'hist', historyLength: 100 })));
    expect(all.history?.map(textOf)).toEqual(['one', 'and?', 'two', 'ok']);
    const lastTwo = resultOf(await call(rpcRequest('tasks/get', { id: 'hist', historyLength: 2 })));
    expect(lastTwo.history?.map(textOf)).toEqual(['two', 'ok']);
    expect(lastTwo.history?.[0]?.role).toBe('user');
  });

  test('historyLength works on tasks/send too', async () => {
    const none = resultOf(await call(sendRequest('hist-send', 'first', { historyLength: 0 })));
    expect(none).not.toHaveProperty('history');
    const some = resultOf(await call(sendRequest('hist-send', 'second', { historyLength: 3 })));
    expect(some.history?.map(textOf)).toEqual(['and?', 'second', 'ok']);
  });
});

describe('tasks/get and tasks/cancel', () => {
  test('tasks/get and tasks/cancel on an unknown id are -32001', async () => {
    const call = caller(appWith(async () => completed()).app);
    expect((await call(rpcRequest('tasks/get', { id: 'nope' }))).error).toMatchObject({ code: -32001, message: 'Task not found' });
    expect((await call(rpcRequest('tasks/cancel', { id: 'nope' }))).error.code).toBe(-32001);
  });

  test.each(['completed', 'failed'])('tasks/cancel on a %s task is -32002', async (state) => {
    const call = caller(appWith(async () => (state === 'completed' ? completed() : failed())).app);
    await call(sendRequest('finished', 'x'));
    expect((await call(rpcRequest('tasks/cancel', { id: 'finished' }))).error).toMatchObject({ code: -32002, data: { state } });
  });

  test("cancel of a running task aborts the handler's signal and the task ends canceled", async () => {
    let signal: AbortSignal | undefined;
    const handlerDone = gate<string>();
    const call = caller(
      appWith(
        async function* (ctx) {
          signal = ctx.signal;
          yield working('long job');
          try {
            await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))));
          } finally {
            handlerDone.open('finally ran');
          }
          yield completed('never');
        },
        { sendWaitMs: 20 },
      ).app,
    );
    expect(resultOf(await call(sendRequest('cancel-me', 'x'))).status.state).toBe('working');
    const canceled = resultOf(await call(rpcRequest('tasks/cancel', { id: 'cancel-me' })));
    expect(canceled.status.state).toBe('canceled');
    expect(signal?.aborted).toBe(true);
    expect(await handlerDone.promise).toBe('finally ran');
    const later = resultOf(await call(rpcRequest('tasks/get', { id: 'cancel-me' })));
    expect(later.status.state).toBe('canceled');
  });

  test('updates a handler yields after cancellation are ignored', async () => {
    const afterCancel = gate();
    const yielded = gate();
    const call = caller(
      appWith(
        async function* () {
          yield working();
          await afterCancel.promise;
          yield artifact('too late');
          yielded.open();
          yield completed();
        },
        { sendWaitMs: 20 },
      ).app,
    );
    await call(sendRequest('late', 'x'));
    await call(rpcRequest('tasks/cancel', { id: 'late' }));
    afterCancel.open();
    const task = resultOf(await call(rpcRequest('tasks/get', { id: 'late' })));
    expect(task.status.state).toBe('canceled');
    expect(task).not.toHaveProperty('artifacts');
  });

  test('a task waiting for input can be canceled', async () => {
    const call = caller(appWith(async () => inputRequired('?')).app);
    await call(sendRequest('paused', 'x'));
    expect(resultOf(await call(rpcRequest('tasks/cancel', { id: 'paused' }))).status.state).toBe('canceled');
  });
});

describe('handler failures', () => {
  test('a handler that throws ends its task failed with a safe message, no stack or internals', async () => {
    const call = caller(
      appWith(async () => {
        throw new Error('db password=hunter2 at /srv/app/secret.js:12');
      }).app,
    );
    const response = await call(sendRequest('boom', 'x'));
    const task = resultOf(response);
    expect(task.status).toMatchObject({
      state: 'failed',
      message: { role: 'agent', parts: [{ type: 'text', text: 'The agent failed while processing the task.' }] },
    });
    expect(JSON.stringify(response)).not.toMatch(/hunter2|secret\.js|at \//);
  });

  test('an A2AError thrown by the handler answers tasks/send with that error and fails the task', async () => {
    const call = caller(
      appWith(async () => {
        throw A2AError.contentTypeNotSupported({ accepted: ['text/plain'] });
      }).app,
    );
    const response = await call(sendRequest('refused', 'x', {}, 'r'));
    expect(response).toMatchObject({
      id: 'r',
      error: { code: -32005, message: 'Incompatible content types', data: { accepted: ['text/plain'] } },
    });
    const task = resultOf(await call(rpcRequest('tasks/get', { id: 'refused' })));
    expect(task.status).toMatchObject({ state: 'failed', message: { parts: [{ text: 'Incompatible content types' }] } });
  });

  test.each([
    ['an artifact without parts', artifact([])],
    ['a state handlers may not set', { kind: 'status', state: 'submitted' }],
    ['something that is not an update', 'done!'],
    ['a value JSON cannot carry', artifact([{ type: 'data', data: { n: 10n } as unknown as Record<string, unknown> }])],
  ])('a handler yielding %s fails its task with a safe message', async (_, update) => {
    const call = caller(appWith(async () => update as never).app);
    const task = resultOf(await call(sendRequest('invalid', 'x')));
    expect(task.status).toMatchObject({ state: 'failed', message: { parts: [{ text: 'The agent produced an invalid update.' }] } });
  });

  test('updates yielded before an invalid one, or before a throw, are kept', async () => {
    const invalidAfter = caller(
      appWith(async function* () {
        yield artifact('kept');
        yield artifact([]);
      }).app,
    );
    const first = resultOf(await invalidAfter(sendRequest('kept-1', 'x')));
    expect(first.status.state).toBe('failed');
    expect(first.artifacts).toEqual([{ parts: [{ type: 'text', text: 'kept' }], index: 0 }]);
    const throwsAfter = caller(
      appWith(async function* () {
        yield artifact('kept too');
        throw new Error('then broke');
      }).app,
    );
    const second = resultOf(await throwsAfter(sendRequest('kept-2', 'x')));
    expect(second.status.state).toBe('failed');
    expect(second.artifacts).toEqual([{ parts: [{ type: 'text', text: 'kept too' }], index: 0 }]);
  });

  test('the handler gets copies: changing its message does not change the stored history', async () => {
    const call = caller(
      appWith(async (ctx) => {
        (ctx.message.parts[0] as { text: string }).text = 'changed';
        return completed();
      }).app,
    );
    await call(sendRequest('copy', 'original'));
    const task = resultOf(await call(rpcRequest('tasks/get', { id: 'copy', historyLength: 1 })));
    expect(task.history?.map(textOf)).toEqual(['original']);
  });
});
