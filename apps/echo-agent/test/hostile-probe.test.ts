// The probe that crashed the echo agent as shipped (issue #25, finding 1), run against the built
// agent as its start script runs it, on each store: a huge contextId, then a task filled with
// continuations under the longest context id allowed, then a stream continuing it. The agent must
// refuse what is too large, end every stream with a final event or a clear error, and live on.
// The agent holds a quarter of its default task size (A2A_MAX_TASK_BYTES, 4 MiB), and the probe's
// messages are a quarter of what they were: the same paths to a full task, at a quarter of the CPU
// (filling 16 MiB tasks on three stores took a minute of the test run).
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  deleteKeys,
  dropSchema,
  postgresUrl,
  postJson,
  redisUrl,
  requirePostgres,
  requireRedis,
  rpc,
  spawnAgent,
  uniquePrefix,
  uniqueSchema,
  type SpawnedAgent,
} from 'a2a-testing';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const prefix = uniquePrefix('echo-probe');
const schema = uniqueSchema('echo_probe');
afterAll(async () => {
  await deleteKeys(redisUrl(), prefix);
  await dropSchema(postgresUrl(), schema);
});

const maxTaskBytes = 4 * 1024 * 1024;

const message03 = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});

describe.each([
  ['the in-memory store', async () => ({})],
  ['Redis', async () => ({ A2A_REDIS_URL: await requireRedis(redisUrl()), A2A_REDIS_PREFIX: prefix })],
  ['PostgreSQL', async () => ({ A2A_STORE: 'postgres', DATABASE_URL: await requirePostgres(postgresUrl()), A2A_POSTGRES_SCHEMA: schema })],
])('the echo agent on %s survives the probe', (_name, storeEnv) => {
  let agent: SpawnedAgent;
  beforeAll(async () => {
    agent = await spawnAgent('node', ['dist/server.js'], {
      cwd: appDir,
      env: { PORT: '0', A2A_MAX_TASK_BYTES: String(maxTaskBytes), ...(await storeEnv()) },
    });
  });
  afterAll(() => agent?.stop());

  test('huge ids are refused, a full task is refused more, and its stream ends with a final event', async () => {
    const url03 = `${agent.url}/v0.3`;
    const huge = await rpc(url03, 'message/send', { message: message03('x', { contextId: 'c'.repeat(9_500_000) }) });
    expect(huge.error).toMatchObject({ code: -32602, data: [{ path: '/message/contextId', keyword: 'maxLength' }] });

    const contextId = 'c'.repeat(1_024);
    const first = await rpc(url03, 'message/send', { message: message03('y'.repeat(500_000), { contextId }) });
    const taskId = first.result!.id;
    // Continuations until the task is full (about 13 of them: each adds 125 kB and its echo), then
    // one more: a full task stays refused. Sends after that would only repeat the same refusal.
    let refused = 0;
    for (let i = 0; i < 30 && refused < 2; i++) {
      const next = await rpc(url03, 'message/send', { message: message03('z'.repeat(125_000), { taskId, contextId }) });
      // Full: the client's message is refused (-32602), or the echo of it failed the task, which
      // then takes no more messages (-32009).
      if (next.error) {
        expect([-32602, -32009]).toContain(next.error.code);
        refused++;
      } else expect(['completed', 'failed']).toContain(next.result!.status.state);
    }
    expect(refused).toBe(2);

    // Either the task took one more message (its stream ends with a final event) or it is full or
    // failed (a clear JSON-RPC error, before any SSE): never an empty stream or a dead agent.
    const streamed = await postJson(url03, {
      jsonrpc: '2.0',
      id: 7,
      method: 'message/stream',
      params: { message: message03('s', { taskId, contextId }) },
    });
    const body = await streamed.text();
    if (streamed.headers.get('content-type')?.startsWith('text/event-stream')) {
      const events = body.split('\n').filter((line) => line.startsWith('data: '));
      expect(JSON.parse(events.at(-1)!.slice(6))).toMatchObject({ id: 7, result: { final: true } });
    } else {
      expect([-32602, -32009]).toContain((JSON.parse(body) as { error: { code: number } }).error.code);
    }

    const read = await rpc(url03, 'tasks/get', { id: taskId, historyLength: 100 });
    expect(read.result?.id).toBe(taskId);
    expect(JSON.stringify(read.result).length).toBeLessThanOrEqual(2 * maxTaskBytes);
    expect((await rpc(`${agent.url}/`, 'tasks/get', { id: taskId })).result?.id).toBe(taskId);
    expect(agent.output()).not.toMatch(/ERR_STREAM_WRITE_AFTER_END|Invalid string length/);
  }, 240_000);
});
