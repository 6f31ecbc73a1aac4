// The currency agent's LLM path on the AI SDK: the provider chosen by environment, each one's
// requests reaching a loopback stand-in (where its API lives, with its key), the SDK's own test
// model as the model, and the built-in understanding whenever the model is no help.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { pino } from 'pino';
import { MockLanguageModelV4 } from 'ai/test';
import { rpc, serverPool, spawnAgent } from 'a2a-testing';
import type { DataPart, Task } from 'a2a-types';
import { currencyRouter } from '../src/agent.js';
import { llmOptionsFromEnv } from 'a2a-ai/llm-config';
import { RateSource } from '../src/rates.js';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const { serve, closeAll } = serverPool();
afterAll(closeAll);

async function rateStandIn(rate = 0.5) {
  const app = express().get('/:date', (req, res) => {
    res.json({ amount: 1, base: req.query.from, date: '2025-04-02', rates: { [String(req.query.to)]: rate } });
  });
  return (await serve(app)).url;
}

/** A stand-in for a provider's API on loopback: records each request, answers with `answer`. */
async function providerStandIn(answer: (path: string) => { status: number; body: unknown }) {
  const requests: { path: string; headers: Record<string, unknown>; body: Record<string, unknown> }[] = [];
  const app = express().post(/.*/, express.json(), (req, res) => {
    requests.push({ path: req.path, headers: req.headers, body: req.body });
    const { status, body } = answer(req.path);
    res.status(status).json(body);
  });
  return { url: (await serve(app)).url, requests };
}

const ask = (url: string, id: string, text: string) =>
  rpc<Task>(url, 'tasks/send', { id, message: { role: 'user', parts: [{ type: 'text', text }] } });
const dataOf = (task: Task) => (task.artifacts![0]!.parts.find((p) => p.type === 'data') as DataPart).data;

describe('the LLM configuration from the environment', () => {
  test('LLM_BASE_URL and LLM_MODEL, as before, are an OpenAI-compatible server', () => {
    expect(llmOptionsFromEnv({ LLM_BASE_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'm', LLM_API_KEY: 'k' }, 5_000)).toEqual({
      provider: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      apiKey: 'k',
      timeoutMs: 5_000,
    });
  });

  test('LLM_PROVIDER names OpenAI, Anthropic or Google, whose base URL and key may come from their own defaults', () => {
    for (const provider of ['openai', 'anthropic', 'google']) {
      expect(llmOptionsFromEnv({ LLM_PROVIDER: provider, LLM_MODEL: 'm' }, 1)).toEqual({ provider, model: 'm', timeoutMs: 1 });
    }
  });

  test('no model, no LLM; an unknown provider, or a compatible one without a URL, is a configuration error', () => {
    expect(llmOptionsFromEnv({}, 1)).toBeUndefined();
    expect(llmOptionsFromEnv({ LLM_BASE_URL: 'http://127.0.0.1:1' }, 1)).toBeUndefined();
    expect(() => llmOptionsFromEnv({ LLM_PROVIDER: 'skynet', LLM_MODEL: 'm' }, 1)).toThrow(/LLM_PROVIDER must be one of/);
    expect(() => llmOptionsFromEnv({ LLM_PROVIDER: 'openai-compatible', LLM_MODEL: 'm' }, 1)).toThrow(/needs LLM_BASE_URL/);
  });
});

describe('each provider, as the started agent configures it, calls its API with its key', () => {
  // The stand-in refuses every call: what matters here is where the call went and with what; the
  // agent then answers from its built-in understanding.
  test.each([
    ['openai-compatible', '/v1/chat/completions', 'authorization', 'Bearer sk-test'],
    ['openai', '/v1/responses', 'authorization', 'Bearer sk-test'],
    ['anthropic', '/v1/messages', 'x-api-key', 'sk-test'],
    ['google', '/v1/models/test-model:generateContent', 'x-goog-api-key', 'sk-test'],
  ])('%s', async (provider, path, header, value) => {
    const standIn = await providerStandIn(() => ({ status: 400, body: { error: { message: 'refused by the stand-in' } } }));
    const agent = await spawnAgent('node', ['dist/server.js'], {
      cwd: appDir,
      env: {
        PORT: '0',
        FRANKFURTER_URL: await rateStandIn(),
        LLM_PROVIDER: provider,
        LLM_BASE_URL: `${standIn.url}/v1`,
        LLM_MODEL: 'test-model',
        LLM_API_KEY: 'sk-test',
        LLM_TIMEOUT_MS: '5000',
      },
    });
    try {
      expect(agent.output()).toContain(`"understanding":"LLM ${provider} test-model (built-in parser as fallback)"`);
      const task = (await ask(agent.url, `provider-${provider}`, 'convert 100 USD to EUR')).result!;
      expect(dataOf(task)).toMatchObject({ amount: 100, from: 'USD', to: 'EUR', result: 50 });
      expect(standIn.requests.map((r) => r.path)).toEqual([path]);
      expect(standIn.requests[0]!.headers[header]).toBe(value);
      expect(JSON.stringify(standIn.requests[0]!.body)).toContain('get_exchange_rate');
    } finally {
      await agent.stop();
    }
  });
});

describe('with the AI SDK test model', () => {
  const agentWith = async (model: MockLanguageModelV4, timeoutMs?: number) => {
    const router = currencyRouter({
      rates: new RateSource({ baseUrl: await rateStandIn(150), timeoutMs: 1_000, cacheTtlMs: 60_000 }),
      llm: { model, ...(timeoutMs ? { timeoutMs } : {}) },
      logger: pino({ level: 'silent' }),
    });
    return (await serve(express().use(router))).url;
  };
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };

  test('understands the request through the model’s call of the rate tool, given the conversation', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'get_exchange_rate',
            input: JSON.stringify({ currency_from: 'usd', currency_to: 'JPY', amount: 100 }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      },
    });
    const url = await agentWith(model);
    const task = (await ask(url, 'mock-llm', 'what do a hundred greenbacks get me in Tokyo?')).result!;
    expect(dataOf(task)).toMatchObject({ amount: 100, from: 'USD', to: 'JPY', result: 15000 });
    const call = model.doGenerateCalls[0]!;
    expect(call.prompt.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: 'what do a hundred greenbacks get me in Tokyo?' }],
    });
    expect(call.tools).toMatchObject([{ type: 'function', name: 'get_exchange_rate' }]);
  });

  test('a model that does not answer in time is left behind: the built-in understanding answers', async () => {
    let modelSignal: AbortSignal | undefined;
    const model = new MockLanguageModelV4({
      doGenerate: ({ abortSignal }) => {
        modelSignal = abortSignal;
        return new Promise((_, reject) => abortSignal?.addEventListener('abort', () => reject(abortSignal.reason), { once: true }));
      },
    });
    const url = await agentWith(model, 200);
    const task = (await ask(url, 'slow-llm', 'convert 100 USD to EUR')).result!;
    expect(dataOf(task)).toMatchObject({ amount: 100, from: 'USD', to: 'EUR' });
    expect(modelSignal!.aborted).toBe(true);
  });
});
