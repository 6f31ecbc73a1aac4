// The echo agent end to end, as its clients see it, on whichever server runs it (sample-edges.ts):
// the same tests for Express, node:http, and the fetch handler on Hono, Bun and Deno.
import express from 'express';
import { collect, listen, openStream, rpc, type RunningServer, type SpawnedAgent } from 'a2a-testing';
import type { VerifiedNotification } from 'a2a-push-receiver';
import { pushNotificationReceiver } from 'a2a-push-receiver/express';
import {
  isStatusUpdateEvent,
  validateAgentCard,
  type AgentCard,
  type Part,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskEvent,
} from 'a2a-types';
import { startEcho, type SampleEdge } from './sample-edges.js';

const user = (...parts: Part[]) => ({ role: 'user', parts });
const text = (t: string): Part => ({ type: 'text', text: t });

function resultOf<R = Task>(response: { result?: unknown; error?: unknown }): R {
  if (response.error) throw new Error(JSON.stringify(response.error));
  return response.result as R;
}
const resultsOf = (events: { message: unknown }[]) => events.map((e) => (e.message as { result: TaskEvent }).result);
const joinedText = (parts: readonly Part[]) => parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

/** The echo agent's tests as a client sees them, against the agent started on `edge`. */
export function echoAgentSuite(edge: SampleEdge): void {
  describe(`echo agent on ${edge}, end to end`, () => {
    let agent: SpawnedAgent;
    let slow: SpawnedAgent;

    beforeAll(async () => {
      const start = (env: Record<string, string>) => startEcho(edge, { A2A_PUSH_ALLOWLIST: '127.0.0.1', ...env });
      [agent, slow] = await Promise.all([start({}), start({ ECHO_DELAY_MS: '150' })]);
    });
    afterAll(async () => {
      expect(await agent.stop()).toBe(0);
      await slow.stop();
    });

    test('with A2A_API_KEYS set, calls need a key, and the card says so', async () => {
      const guarded = await startEcho(edge, { A2A_API_KEYS: 'e2e-secret-key=tester' });
      try {
        expect(JSON.parse(guarded.output().trim().split('\n')[0]!).authentication).toEqual(['ApiKey']);
        const card = (await (await fetch(`${guarded.url}/.well-known/agent.json`)).json()) as AgentCard;
        expect(card.authentication?.schemes).toEqual(['ApiKey']);
        const refused = await rpc(guarded.url, 'tasks/send', { id: 'k', message: user(text('x')) });
        expect(refused).toMatchObject({ httpStatus: 401, error: { code: -32007 } });
        const served = await rpc(
          guarded.url,
          'tasks/send',
          { id: 'k', message: user(text('x')) },
          { headers: { 'X-API-Key': 'e2e-secret-key' } },
        );
        expect(resultOf(served).status.state).toBe('completed');
      } finally {
        await guarded.stop();
      }
    });

    test('serves a valid agent card', async () => {
      const card = (await (await fetch(`${agent.url}/.well-known/agent.json`)).json()) as AgentCard;
      expect(validateAgentCard(card)).toBe(true);
      expect(card).toMatchObject({ name: 'Echo Agent', url: `${agent.url}/`, capabilities: { streaming: true, pushNotifications: true } });
      expect(card.skills[0]!.id).toBe('echo');
    });

    test('tasks/send echoes text, file and data parts back as one artifact', async () => {
      const file: Part = {
        type: 'file',
        file: { name: 'hello.txt', mimeType: 'text/plain', bytes: Buffer.from('hello').toString('base64') },
      };
      const data: Part = { type: 'data', data: { amount: 100, currency: ['USD', 'EUR'] } };
      const task = resultOf(
        await rpc(agent.url, 'tasks/send', { id: 'e2e-send', message: user(text('the quick brown fox jumps'), file, data) }),
      );
      expect(task.status.state).toBe('completed');
      const parts = task.artifacts![0]!.parts;
      expect(joinedText(parts.filter((p) => p.type === 'text'))).toBe('the quick brown fox jumps');
      expect(parts.filter((p) => p.type !== 'text')).toEqual([file, data]);
    });

    test('a data part holding an array (valid 0.1.0 input) is echoed as { items }, the form the published schema takes', async () => {
      const items: Part = { type: 'data', data: [1, 'two', { three: 3 }] as never };
      const task = resultOf(await rpc(agent.url, 'tasks/send', { id: 'e2e-array', message: user(items) }));
      expect(task.status.state).toBe('completed');
      expect(task.artifacts![0]!.parts).toEqual([{ type: 'data', data: { items: [1, 'two', { three: 3 }] } }]);
    });

    test('tasks/sendSubscribe streams the echo in several chunks, then completes', async () => {
      const events = resultsOf(
        await collect(
          await openStream(agent.url, 'tasks/sendSubscribe', { id: 'e2e-stream', message: user(text('one two three four five six')) }),
        ),
      );
      const chunks = events.filter((e): e is TaskArtifactUpdateEvent => 'artifact' in e).map((e) => e.artifact);
      expect(chunks.length).toBeGreaterThanOrEqual(3);
      expect(chunks[0]!.append).toBe(false);
      expect(chunks.slice(1).every((c) => c.append === true)).toBe(true);
      expect(chunks.at(-1)!.lastChunk).toBe(true);
      expect(joinedText(chunks.flatMap((c) => c.parts))).toBe('one two three four five six');
      expect(events.at(-1)).toMatchObject({ status: { state: 'completed' }, final: true });
      const task = resultOf(await rpc(agent.url, 'tasks/get', { id: 'e2e-stream' }));
      expect(joinedText(task.artifacts![0]!.parts)).toBe('one two three four five six');
    });

    test('asks for input when there is nothing to echo, then echoes the answer on the same task', async () => {
      const asked = resultOf(await rpc(agent.url, 'tasks/send', { id: 'e2e-input', message: user(text('   ')) }));
      expect(asked.status.state).toBe('input-required');
      expect(joinedText(asked.status.message!.parts)).toMatch(/nothing to echo/);
      const answered = resultOf(
        await rpc(agent.url, 'tasks/send', { id: 'e2e-input', message: user(text('now something')), historyLength: 10 }),
      );
      expect(answered.status.state).toBe('completed');
      expect(answered.history!.map((m) => [m.role, joinedText(m.parts)])).toEqual([
        ['user', '   '],
        ['agent', 'There is nothing to echo. Send some text, a file or data.'],
        ['user', 'now something'],
        ['agent', 'Echoing your message…'],
      ]);
    });

    test('resubscribe with Last-Event-ID after a dropped stream gets exactly the missed events', async () => {
      const first = await openStream(
        slow.url,
        'tasks/sendSubscribe',
        { id: 'e2e-resume', message: user(text('alpha beta gamma delta epsilon zeta')) },
        { eventIds: true },
      );
      const seen = await collect(first, { max: 3 });
      first.abort();
      const rest = await collect(
        await openStream(slow.url, 'tasks/resubscribe', { id: 'e2e-resume' }, { headers: { 'Last-Event-ID': seen.at(-1)!.id! } }),
      );
      const ids = [...seen, ...rest].map((e) => Number(e.id));
      expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
      const chunks = resultsOf([...seen, ...rest]).filter((e): e is TaskArtifactUpdateEvent => 'artifact' in e);
      expect(joinedText(chunks.flatMap((c) => c.artifact.parts))).toBe('alpha beta gamma delta epsilon zeta');
      expect(resultsOf(rest).at(-1)).toMatchObject({ status: { state: 'completed' }, final: true });
    });

    test('cancel stops a running echo: the task ends canceled and its stream ends with that', async () => {
      const stream = await openStream(slow.url, 'tasks/sendSubscribe', { id: 'e2e-cancel', message: user(text('a b c d e f g h i')) });
      const reading = collect(stream);
      await new Promise((r) => setTimeout(r, 100));
      const canceled = resultOf(await rpc(slow.url, 'tasks/cancel', { id: 'e2e-cancel' }));
      expect(canceled.status.state).toBe('canceled');
      const events = resultsOf(await reading);
      const last = events.at(-1)!;
      expect(isStatusUpdateEvent(last) && last.status.state).toBe('canceled');
      expect(events.filter((e) => isStatusUpdateEvent(e) && e.final)).toHaveLength(1);
      expect(events.filter((e) => 'artifact' in e).length).toBeLessThan(3);
      expect((await rpc(slow.url, 'tasks/cancel', { id: 'e2e-cancel' })).error).toMatchObject({ code: -32002 });
    });

    test('push notifications: a webhook allowed by A2A_PUSH_ALLOWLIST gets verifiable notifications', async () => {
      const received: VerifiedNotification<{ status: { state: string } }>[] = [];
      let receiver: RunningServer | undefined;
      try {
        receiver = await listen(
          express().use(
            '/hook',
            pushNotificationReceiver({
              jwksUrl: `${agent.url}/.well-known/jwks.json`,
              expectedToken: 'e2e-token',
              onNotification: (n) => void received.push(n as VerifiedNotification<{ status: { state: string } }>),
            }),
          ),
        );
        const task = resultOf(
          await rpc(agent.url, 'tasks/send', {
            id: 'e2e-push',
            message: user(text('notify me')),
            pushNotification: { url: `${receiver.url}/hook`, token: 'e2e-token' },
          }),
        );
        expect(task.status.state).toBe('completed');
        const deadline = Date.now() + 5_000;
        while (received.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        expect(received.map((n) => n.payload.status.state)).toEqual(['working', 'working', 'completed']);
        const refused = await rpc(agent.url, 'tasks/pushNotification/set', {
          id: 'e2e-push',
          pushNotificationConfig: { url: 'http://169.254.169.254/latest' },
        });
        expect(refused.error?.code).toBe(-32602);
      } finally {
        await receiver?.close();
      }
    });

    test('bad input gets a JSON-RPC error, not a crash', async () => {
      const res = await fetch(agent.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
      expect(await res.json()).toMatchObject({ id: null, error: { code: -32700 } });
      expect((await rpc(agent.url, 'tasks/get', { id: 'never-made' })).error).toMatchObject({ code: -32001 });
    });
  });
}
