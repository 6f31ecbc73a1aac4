// Both sample agents, started as their start scripts start them, read by the rules of the
// protocol's own 0.1.0 reference clients (JS and Python): every streaming call delivers every
// event, in order, with the final one last, and nothing either client would choke on.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readLikeReferenceJsClient, readLikeReferencePythonClient, readStreamText, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { isStatusUpdateEvent, type TaskEvent } from 'a2a-types';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const message = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

const agents: Record<string, { dir: string; env: Record<string, string>; ask: string }> = {
  echo: { dir: 'apps/echo-agent', env: { ECHO_DELAY_MS: '40' }, ask: 'one two three four five six' },
  // No network: the rate source is a closed loopback port, so the offline snapshot answers.
  currency: {
    dir: 'apps/currency-agent',
    env: { FRANKFURTER_URL: 'http://127.0.0.1:9', RATES_TIMEOUT_MS: '300' },
    ask: 'convert 100 USD to EUR',
  },
};

describe.each(Object.entries(agents))('the %s agent, read as the reference clients read', (name, { dir, env, ask }) => {
  let agent: SpawnedAgent;
  beforeAll(async () => {
    agent = await spawnAgent('node', ['dist/server.js'], { cwd: join(root, dir), env: { PORT: '0', LOG_LEVEL: 'info', ...env } });
  });
  afterAll(async () => {
    expect(await agent.stop()).toBe(0);
  });

  /** Reads one streaming call with both rules; they must agree and find nothing wrong. */
  async function readBoth(method: string, params: unknown): Promise<TaskEvent[]> {
    const { status, headers, body } = await readStreamText(agent.url, method, params);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/event-stream');
    const js = readLikeReferenceJsClient(body);
    const python = readLikeReferencePythonClient(body);
    expect(js.problems).toEqual([]);
    expect(python.problems).toEqual([]);
    expect(python.messages).toEqual(js.messages);
    const events = js.messages.map((m) => (m as { result: TaskEvent }).result);
    const finals = events.filter((e) => isStatusUpdateEvent(e) && e.final);
    expect(finals).toHaveLength(1);
    expect(events.at(-1)).toBe(finals[0]);
    return events;
  }

  test('tasks/sendSubscribe', async () => {
    const events = await readBoth('tasks/sendSubscribe', { id: `${name}-stream`, message: message(ask) });
    expect(events.some((e) => !isStatusUpdateEvent(e))).toBe(true);
    expect(events.at(-1)).toMatchObject({ status: { state: 'completed' } });
  });

  test('tasks/resubscribe while the task runs, and after it finished', async () => {
    const id = `${name}-resubscribe`;
    const started = await fetch(agent.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/sendSubscribe', params: { id, message: message(ask) } }),
      signal: AbortSignal.timeout(15_000),
    });
    const reader = started.body!.getReader();
    await reader.read(); // the first event is out: the task exists
    const live = await readBoth('tasks/resubscribe', { id });
    expect(live.at(-1)).toMatchObject({ status: { state: 'completed' }, final: true });
    while (!(await reader.read()).done);
    const after = await readBoth('tasks/resubscribe', { id });
    expect(after).toEqual([expect.objectContaining({ status: expect.objectContaining({ state: 'completed' }), final: true })]);
  });
});
