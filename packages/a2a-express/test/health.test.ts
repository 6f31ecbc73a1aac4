// Liveness and readiness: live while the process answers; ready unless the router drains or its
// task store cannot be reached, and ready again once the store is back.
import express from 'express';
import { serverPool, startOwnRedis, type OwnRedis } from 'a2a-testing';
import { a2aRouter, completed, type TaskHandler } from '../src/index.js';
import { RedisTaskStore } from '../src/redis.js';
import { gate, memoryLogger, sendRequest, silent, testCard } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

const held = gate();
const handler: TaskHandler = async function* () {
  await held.promise;
  yield completed();
};

async function agentWithHealth(options: Record<string, unknown> = {}) {
  const router = a2aRouter(handler, { card: testCard, logger: silent, ...options });
  const app = express().use(router).get('/livez', router.health.live).get('/readyz', router.health.ready);
  const { url } = await serve(app);
  const probe = async (path: string) => {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: (await response.json()) as { status: string; reasons?: string[] } };
  };
  return { url, router, probe };
}

test('ready and live while all is well; not ready while draining, live all the same', async () => {
  const agent = await agentWithHealth();
  expect(await agent.probe('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  expect(await agent.probe('/livez')).toEqual({ status: 200, body: { status: 'live' } });
  // A turn that holds the drain open.
  const call = fetch(agent.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sendRequest('h-1', 'x')),
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const drained = agent.router.drain({ deadlineMs: 5_000 });
  const during = await agent.probe('/readyz');
  expect(during.status).toBe(503);
  expect(during.body).toEqual({ status: 'not ready', reasons: ['the agent is shutting down (draining)'] });
  expect((await agent.probe('/livez')).status).toBe(200);
  held.open();
  expect(await drained).toEqual({ finished: 1, stopped: 0 });
  expect((await call).status).toBe(200);
  await agent.router.close();
});

describe('with the Redis store', () => {
  let redis: OwnRedis;
  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(() => redis.dispose());

  test('not ready while Redis is stopped, saying why; ready again once it is back', async () => {
    const store = new RedisTaskStore({ url: redis.url, prefix: 'health:', commandTimeoutMs: 500, maxReconnectDelayMs: 100 });
    const { logger, lines } = memoryLogger();
    const agent = await agentWithHealth({ store, logger });
    try {
      expect(await agent.probe('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
      await redis.stop();
      const down = await agent.probe('/readyz');
      expect(down.status).toBe(503);
      // Redis's own words are for the log, not for whoever probes.
      expect(down.body.reasons).toEqual(['the task store cannot be reached']);
      expect(lines()).toContainEqual(
        expect.objectContaining({
          msg: 'readiness: the task store cannot be reached',
          reason: expect.stringMatching(/^no connection to Redis/),
        }),
      );
      expect((await agent.probe('/livez')).status).toBe(200);
      await redis.start();
      let again = await agent.probe('/readyz');
      for (let attempt = 0; attempt < 50 && again.status !== 200; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        again = await agent.probe('/readyz');
      }
      expect(again).toEqual({ status: 200, body: { status: 'ready' } });
    } finally {
      await agent.router.close();
      await store.close();
    }
  });
});
