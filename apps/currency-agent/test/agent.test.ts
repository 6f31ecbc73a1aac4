import express from 'express';
import { pino } from 'pino';
import { collect, listen, openStream, rpc, serverPool } from 'a2a-testing';
import type { DataPart, Task, TaskArtifactUpdateEvent, TaskEvent, TextPart } from 'a2a-types';
import { currencyRouter } from '../src/agent.js';
import { RateSource } from '../src/rates.js';
import { RATES_SNAPSHOT } from '../src/rates-snapshot.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

/** A Frankfurter stand-in on loopback answering the rate we choose, counting its calls. */
async function frankfurter(rate = 0.5, answer?: (req: express.Request) => unknown) {
  const calls: string[] = [];
  const app = express().get('/:date', (req, res) => {
    calls.push(req.originalUrl);
    res.json(
      answer
        ? answer(req)
        : {
            amount: 1,
            base: req.query.from,
            date: req.params.date === 'latest' ? '2025-04-02' : req.params.date,
            rates: { [String(req.query.to)]: rate },
          },
    );
  });
  const server = await serve(app);
  return { url: server.url, calls };
}

/** A closed port on loopback: connection refused at once, as when offline. */
async function unreachable() {
  const server = await listen((_req, res) => res.end());
  const url = server.url;
  await server.close();
  return url;
}

async function agent(ratesUrl: string, extra: Record<string, unknown> = {}) {
  const router = currencyRouter({
    rates: new RateSource({ baseUrl: ratesUrl, timeoutMs: 1_000, cacheTtlMs: 60_000 }),
    logger: pino({ level: 'silent' }),
    ...extra,
  });
  return (await serve(express().use(router))).url;
}

const ask = (url: string, id: string, text: string, extra: Record<string, unknown> = {}) =>
  rpc(url, 'tasks/send', { id, message: { role: 'user', parts: [{ type: 'text', text }] }, ...extra });

function answerOf(task: Task): { text: string; data: Record<string, unknown> } {
  const parts = task.artifacts![0]!.parts;
  return {
    text: (parts.find((p) => p.type === 'text') as TextPart).text,
    data: (parts.find((p) => p.type === 'data') as DataPart).data as Record<string, unknown>,
  };
}
const statusText = (task: Task) => (task.status.message!.parts[0] as TextPart).text;

describe('currency agent', () => {
  test('offline: "convert 100 USD to EUR" completes with a number, the data part, and the fallback named', async () => {
    const url = await agent(await unreachable());
    const task = (await ask(url, 'offline', 'convert 100 USD to EUR')).result!;
    expect(task.status.state).toBe('completed');
    const { text, data } = answerOf(task);
    const expected = (100 * RATES_SNAPSHOT.rates.EUR!) / RATES_SNAPSHOT.rates.USD!;
    expect(data).toEqual({
      amount: 100,
      from: 'USD',
      to: 'EUR',
      rate: expect.closeTo(expected / 100, 10),
      result: expect.closeTo(expected, 4),
      date: RATES_SNAPSHOT.date,
      source: 'offline-snapshot',
    });
    expect(text).toMatch(/^100 USD is \d+(\.\d+)? EUR\./);
    expect(text).toContain(`offline snapshot of European Central Bank rates of ${RATES_SNAPSHOT.date}`);
  });

  test('against a rate-source stand-in, the answer uses exactly its rate; a second identical question is served from the cache', async () => {
    const source = await frankfurter(0.5);
    const url = await agent(source.url);
    const first = answerOf((await ask(url, 'live-1', 'convert 100 USD to EUR')).result!);
    expect(first.data).toEqual({ amount: 100, from: 'USD', to: 'EUR', rate: 0.5, result: 50, date: '2025-04-02', source: 'frankfurter' });
    expect(first.text).toBe('100 USD is 50 EUR. (European Central Bank reference rate of 2025-04-02, via the Frankfurter API.)');
    const second = answerOf((await ask(url, 'live-2', 'convert 100 USD to EUR')).result!);
    expect(second.data.result).toBe(50);
    expect(source.calls).toEqual(['/latest?from=USD&to=EUR']);
  });

  test('a date is passed to the rate source', async () => {
    const source = await frankfurter(160.2);
    const url = await agent(source.url);
    const { data } = answerOf((await ask(url, 'dated', 'EUR→JPY rate on 2024-01-15')).result!);
    expect(source.calls).toEqual(['/2024-01-15?from=EUR&to=JPY']);
    expect(data).toMatchObject({ rate: 160.2, date: '2024-01-15' });
  });

  test('a rate source answering garbage is not trusted: the offline snapshot answers', async () => {
    const source = await frankfurter(0, () => ({ hello: 'world' }));
    const url = await agent(source.url);
    expect(answerOf((await ask(url, 'garbage', 'convert 1 USD to GBP')).result!).data.source).toBe('offline-snapshot');
  });

  test('"How much is 100 USD?" asks for the target; "in GBP" on the same task completes with GBP', async () => {
    const url = await agent((await frankfurter(0.8)).url);
    const asked = (await ask(url, 'multi', 'How much is 100 USD?')).result!;
    expect(asked.status.state).toBe('input-required');
    expect(statusText(asked)).toBe('Which currency should I convert 100 USD to?');
    const done = (await ask(url, 'multi', 'in GBP')).result!;
    expect(done.status.state).toBe('completed');
    expect(answerOf(done).data).toMatchObject({ amount: 100, from: 'USD', to: 'GBP', result: 80 });
  });

  test('a streamed request shows the two working updates before the answer', async () => {
    const url = await agent((await frankfurter(0.9)).url);
    const events = (
      await collect(
        await openStream(url, 'tasks/sendSubscribe', {
          id: 'stream',
          message: { role: 'user', parts: [{ type: 'text', text: 'convert 10 USD to EUR' }] },
        }),
      )
    ).map((e) => e.message.result as TaskEvent);
    const shape = events.map((e) =>
      'artifact' in e ? 'artifact' : `${e.status.state}${e.status.message ? `: ${(e.status.message.parts[0] as TextPart).text}` : ''}`,
    );
    expect(shape).toEqual([
      'working',
      'working: Looking up the exchange rates...',
      'working: Processing the exchange rates...',
      'artifact',
      'completed',
    ]);
    expect((events[3] as TaskArtifactUpdateEvent).artifact.parts.map((p) => p.type)).toEqual(['text', 'data']);
  });

  test('the reference sample exchange completes with a sentence of the same form', async () => {
    const url = await agent((await frankfurter(85.49)).url);
    const res = await rpc(
      url,
      'tasks/send',
      {
        id: '129',
        sessionId: '8f01f3d172cd4396a0e535ae8aec6687',
        acceptedOutputModes: ['text'],
        message: { role: 'user', parts: [{ type: 'text', text: 'How much is the exchange rate for 1 USD to INR?' }] },
      },
      { id: 11 },
    );
    expect(res.id).toBe(11);
    const task = res.result!;
    expect(task).toMatchObject({ id: '129', sessionId: '8f01f3d172cd4396a0e535ae8aec6687', status: { state: 'completed' } });
    expect(answerOf(task).text).toMatch(/^The exchange rate for 1 USD to INR is 85\.49\. /);
  });

  test('a question that is not about currencies gets a polite refusal saying what the agent can do', async () => {
    const url = await agent(await unreachable());
    const task = (await ask(url, 'off-topic', 'What is the capital of France?')).result!;
    expect(task.status.state).toBe('input-required');
    expect(statusText(task)).toMatch(/^I can only help with currencies: converting an amount/);
    expect(task).not.toHaveProperty('artifacts');
  });

  test('an unknown currency code gets a helpful message, not a failure, and can be corrected', async () => {
    const url = await agent((await frankfurter(0.5)).url);
    const task = (await ask(url, 'unknown', 'convert 100 XYZ to EUR')).result!;
    expect(task.status.state).toBe('input-required');
    expect(statusText(task)).toMatch(/I don't know the currency XYZ\. I can work with: AUD, BGN.*USD, ZAR\. Which one did you mean\?/);
    const fixed = (await ask(url, 'unknown', 'USD')).result!;
    expect(answerOf(fixed).data).toMatchObject({ amount: 100, from: 'USD', to: 'EUR' });
  });

  describe('with an LLM (an OpenAI-compatible stand-in on loopback)', () => {
    async function llm(
      reply: (body: { messages: { role: string; content: string }[]; tools: unknown[] }) => { status?: number; body: unknown },
    ) {
      const requests: {
        headers: Record<string, unknown>;
        body: { messages: { role: string; content: string }[]; tools: unknown[]; model: string };
      }[] = [];
      const app = express().post('/v1/chat/completions', express.json(), (req, res) => {
        requests.push({ headers: req.headers, body: req.body });
        const answer = reply(req.body);
        res.status(answer.status ?? 200).json(answer.body);
      });
      return { url: `${(await serve(app)).url}/v1`, requests };
    }
    const toolCall = (args: Record<string, unknown>) => ({
      body: {
        choices: [
          {
            message: {
              role: 'assistant',
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_exchange_rate', arguments: JSON.stringify(args) } }],
            },
          },
        ],
      },
    });

    test('understands what the built-in parser cannot, through the rate tool', async () => {
      const model = await llm(() => toolCall({ currency_from: 'USD', currency_to: 'JPY', amount: 100 }));
      const url = await agent((await frankfurter(150)).url, { llm: { baseUrl: model.url, model: 'test-model', apiKey: 'sk-test' } });
      const task = (await ask(url, 'llm', 'what do a hundred greenbacks get me in Tokyo?')).result!;
      expect(answerOf(task).data).toMatchObject({ amount: 100, from: 'USD', to: 'JPY', result: 15000 });
      expect(model.requests[0]!.headers.authorization).toBe('Bearer sk-test');
      expect(model.requests[0]!.body).toMatchObject({
        model: 'test-model',
        tools: [{ type: 'function', function: { name: 'get_exchange_rate' } }],
      });
      expect(model.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'what do a hundred greenbacks get me in Tokyo?' });
    });

    test.each([
      ['an HTTP error', () => ({ status: 500, body: { error: 'down' } })],
      ['no tool call', () => ({ body: { choices: [{ message: { role: 'assistant', content: 'Sure!' } }] } })],
      ['arguments that make no sense', () => toolCall({ currency_from: 'Dollars', currency_to: 42 })],
      [
        'malformed arguments',
        () => ({ body: { choices: [{ message: { tool_calls: [{ function: { name: 'get_exchange_rate', arguments: '{not json' } }] } }] } }),
      ],
    ])('falls back to the built-in understanding on %s', async (_, reply) => {
      const model = await llm(reply);
      const url = await agent((await frankfurter(0.5)).url, { llm: { baseUrl: model.url, model: 'm' } });
      expect(answerOf((await ask(url, 'fallback', 'convert 100 USD to EUR')).result!).data).toMatchObject({ result: 50 });
      expect(model.requests).toHaveLength(1);
    });

    test('falls back when the LLM cannot be reached', async () => {
      const url = await agent((await frankfurter(0.5)).url, { llm: { baseUrl: await unreachable(), model: 'm' } });
      expect(answerOf((await ask(url, 'no-llm', 'convert 100 USD to EUR')).result!).data).toMatchObject({ result: 50 });
    });
  });
});
