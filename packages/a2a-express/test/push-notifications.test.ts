import express from 'express';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SignJWT } from 'jose';
import { collect, openStream, rpc, serverPool } from 'a2a-testing';
import { createPushNotificationVerifier, PushVerificationError, type VerifiedNotification } from 'a2a-push-receiver';
import { pushNotificationReceiver } from 'a2a-push-receiver/express';
import {
  artifact,
  completed,
  working,
  type PushNotificationOptions,
  type PushNotificationPayload,
  type TaskHandler,
} from '../src/index.js';
import { appWith, eventually, gate, memoryLogger, resultOf, userText } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

// A fixed EC key keeps the tests fast; the default (a new RSA key) is tested once below.
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingKey = { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'test-key' };

const steps: TaskHandler = async function* () {
  yield working('step 1');
  yield artifact('result');
  yield working('step 2');
  yield completed('done');
};

async function agent(handler: TaskHandler, push: PushNotificationOptions | boolean = {}, extra = {}) {
  const options = push === true || push === false ? push : { signingKey, allowlist: ['127.0.0.1'], retryBackoffMs: 5, ...push };
  const { app, router } = appWith(handler, { pushNotifications: options, ...extra });
  const server = await serve(app);
  return { url: server.url, router };
}

/** A webhook on loopback: records what it receives, answers what it is told. */
async function webhook(answer: (n: number) => number | Promise<number> = () => 200) {
  const received: { headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
  const app = express();
  app.post('/hook', express.raw({ type: () => true }), async (req, res) => {
    received.push({ headers: req.headers, body: req.body as Buffer });
    res.status(await answer(received.length)).end();
  });
  const server = await serve(app);
  return { url: `${server.url}/hook`, received };
}

const send = (url: string, id: string, pushNotification?: object) =>
  rpc(url, 'tasks/send', { id, message: userText('go'), ...(pushNotification ? { pushNotification } : {}) });

describe('push notifications: configuration', () => {
  test('the card says pushNotifications: true and the JWKS holds the signing key', async () => {
    const { url } = await agent(steps);
    const card = (await (await fetch(`${url}/.well-known/agent.json`)).json()) as { capabilities: Record<string, boolean> };
    expect(card.capabilities.pushNotifications).toBe(true);
    const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: Record<string, string>[] };
    expect(jwks.keys).toEqual([expect.objectContaining({ kid: 'test-key', alg: 'ES256', use: 'sig', kty: 'EC', crv: 'P-256' })]);
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  test('without a configured key, an RSA key is made (RS256, kid = thumbprint)', async () => {
    const { url } = await agent(steps, true);
    const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: Record<string, string>[] };
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });

  test('without a configured key, one key is made when first needed: notifications sent before anyone asked for the keys verify against the JWKS, which requests at once name alike', async () => {
    const { url } = await agent(steps, { signingKey: undefined });
    const hook = await webhook();
    resultOf(await send(url, 'first-use', { url: hook.url, token: 'client-token' }));
    await eventually(async () => (hook.received.length >= 4 ? true : undefined));
    const fetchKeys = async () => (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: Record<string, string>[] };
    const [keys, again] = await Promise.all([fetchKeys(), fetchKeys()]);
    expect(keys.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256' })]);
    expect(again).toEqual(keys);
    const verifier = createPushNotificationVerifier({ jwksUrl: `${url}/.well-known/jwks.json`, expectedToken: 'client-token' });
    for (const { headers, body } of hook.received) expect((await verifier.verify({ headers, body })).payload.taskId).toBe('first-use');
  });

  test('a signing key that is not a private key is a TypeError when the router is made', () => {
    expect(() => appWith(steps, { pushNotifications: { signingKey: 'not a pem' } })).toThrow(/signing key/);
  });

  test('set and get: unknown task -32001; config stored; secrets masked; null removes it (then get says none is set)', async () => {
    const { url } = await agent(steps);
    const hook = await webhook();
    const config = { url: hook.url, token: 'tok-1', authentication: { schemes: ['Bearer'], credentials: 'secret' } };
    expect((await rpc(url, 'tasks/pushNotification/set', { id: 'nope', pushNotificationConfig: config })).error?.code).toBe(-32001);
    expect((await rpc(url, 'tasks/pushNotification/get', { id: 'nope' })).error?.code).toBe(-32001);
    await send(url, 'configured');
    const masked = { url: hook.url, token: '********', authentication: { schemes: ['Bearer'], credentials: '********' } };
    expect(resultOf(await rpc(url, 'tasks/pushNotification/set', { id: 'configured', pushNotificationConfig: config }))).toEqual({
      id: 'configured',
      pushNotificationConfig: masked,
    });
    expect(resultOf(await rpc(url, 'tasks/pushNotification/get', { id: 'configured' }))).toEqual({
      id: 'configured',
      pushNotificationConfig: masked,
    });
    expect(resultOf(await rpc(url, 'tasks/pushNotification/set', { id: 'configured', pushNotificationConfig: null }))).toBeNull();
    expect((await rpc(url, 'tasks/pushNotification/get', { id: 'configured' })).error).toEqual({
      code: -32001,
      message: 'Push notification config not found',
      data: { taskId: 'configured', reason: 'no push notification config is set for this task' },
    });
  });

  test.each([
    ['a relative URL', '/hook'],
    ['a non-http scheme', 'file:///etc/passwd'],
    ['loopback over http', 'http://127.0.0.1/hook'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['a private address over https', 'https://10.0.0.1/hook'],
    ['a host name resolving to loopback', 'https://localhost/hook'],
  ])('set with %s → -32602 unless allow-listed', async (_, hookUrl) => {
    const { url } = await agent(steps, { allowlist: [] });
    await send(url, 'guarded');
    const res = await rpc(url, 'tasks/pushNotification/set', { id: 'guarded', pushNotificationConfig: { url: hookUrl } });
    expect(res.error?.code).toBe(-32602);
    expect((await rpc(url, 'tasks/pushNotification/get', { id: 'guarded' })).error?.message).toBe('Push notification config not found');
  });

  test('a send carrying a refused webhook is -32602 and creates no task', async () => {
    const { url } = await agent(steps, { allowlist: [] });
    expect((await send(url, 'refused', { url: 'http://127.0.0.1:9/hook' })).error?.code).toBe(-32602);
    expect((await rpc(url, 'tasks/get', { id: 'refused' })).error?.code).toBe(-32001);
  });

  test('ownership check: a URL that echoes validationToken is accepted, one that does not is -32602', async () => {
    const { url } = await agent(steps, { verifyOwnership: true });
    const good = await serve(
      express().use('/hook', pushNotificationReceiver({ jwksUrl: `${url}/.well-known/jwks.json`, onNotification: () => undefined })),
    );
    const bad = await serve(express().get('/hook', (_req, res) => void res.send('hello')));
    await send(url, 'owned');
    expect(
      resultOf(await rpc(url, 'tasks/pushNotification/set', { id: 'owned', pushNotificationConfig: { url: `${good.url}/hook` } })),
    ).toMatchObject({ id: 'owned' });
    const refused = await rpc(url, 'tasks/pushNotification/set', { id: 'owned', pushNotificationConfig: { url: `${bad.url}/hook` } });
    expect(refused.error).toMatchObject({ code: -32602, data: [{ message: expect.stringMatching(/ownership not confirmed/) }] });
  });
});

describe('push notifications: remembered ownership checks', () => {
  test('at most maxVerifiedUrls URLs are remembered, the least recently used forgotten first (and checked again)', async () => {
    const { url } = await agent(steps, { verifyOwnership: true, maxVerifiedUrls: 2 });
    const checks: Record<string, number> = {};
    const owner = await serve(
      express().get('/:hook', (req, res) => {
        checks[req.params.hook!] = (checks[req.params.hook!] ?? 0) + 1;
        res.type('text/plain').send(String(req.query.validationToken));
      }),
    );
    await send(url, 'remembered');
    const use = async (hook: string) =>
      resultOf(await rpc(url, 'tasks/pushNotification/set', { id: 'remembered', pushNotificationConfig: { url: `${owner.url}/${hook}` } }));
    for (const hook of ['a', 'b', 'a', 'c', 'b']) await use(hook);
    // a and b checked once; a used again (now the most recent), so c pushed b out; b checked again, pushing a out.
    expect(checks).toEqual({ a: 1, b: 2, c: 1 });
    await use('c');
    await use('a');
    expect(checks).toEqual({ a: 2, b: 2, c: 1 });
  });

  test('maxVerifiedUrls must be a positive integer', () => {
    expect(() => appWith(steps, { pushNotifications: { maxVerifiedUrls: 0 } })).toThrow(/maxVerifiedUrls/);
  });
});

describe('push notifications: delivery', () => {
  test('one signed POST per status change, in order, verifiable against the JWKS', async () => {
    const { url } = await agent(steps);
    const hook = await webhook();
    resultOf(await send(url, 'notified', { url: hook.url, token: 'client-token' }));
    await eventually(async () => (hook.received.length >= 4 ? true : undefined));
    await sleep(50); // nothing more should come
    expect(hook.received).toHaveLength(4);
    const verifier = createPushNotificationVerifier({ jwksUrl: `${url}/.well-known/jwks.json`, expectedToken: 'client-token' });
    const verified: VerifiedNotification<PushNotificationPayload>[] = [];
    for (const { headers, body } of hook.received) {
      expect(headers['content-type']).toBe('application/json');
      expect(headers['x-a2a-notification-token']).toBe('client-token');
      verified.push(await verifier.verify({ headers, body }));
    }
    expect(verified.map((v) => [v.payload.status.state, v.payload.final])).toEqual([
      ['working', false],
      ['working', false],
      ['working', false],
      ['completed', true],
    ]);
    expect(verified.map((v) => v.payload.status.message?.parts[0])).toEqual([
      undefined,
      { type: 'text', text: 'step 1' },
      { type: 'text', text: 'step 2' },
      { type: 'text', text: 'done' },
    ]);
    const ids = verified.map((v) => v.payload.eventId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(verified[0]!.payload).toMatchObject({ eventType: 'taskStatusUpdate', taskId: 'notified' });
    expect(new Set(verified.map((v) => v.claims.jti)).size).toBe(4);
    const [header] = (hook.received[0]!.headers.authorization as string).slice(7).split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toMatchObject({ alg: 'ES256', kid: 'test-key' });
  });

  test('a config sent with tasks/sendSubscribe is set on the task and used', async () => {
    const { url } = await agent(steps);
    const hook = await webhook();
    const events = await collect(
      await openStream(url, 'tasks/sendSubscribe', { id: 'streamed-push', message: userText('go'), pushNotification: { url: hook.url } }),
    );
    expect(events.at(-1)!.message.result).toMatchObject({ status: { state: 'completed' }, final: true });
    await eventually(async () => (hook.received.length >= 4 ? true : undefined));
    expect(hook.received.map((r) => (JSON.parse(r.body.toString()) as PushNotificationPayload).status.state)).toEqual([
      'working',
      'working',
      'working',
      'completed',
    ]);
    expect(resultOf(await rpc(url, 'tasks/pushNotification/get', { id: 'streamed-push' }))).toEqual({
      id: 'streamed-push',
      pushNotificationConfig: { url: hook.url },
    });
  });

  test('a config set with tasks/pushNotification/set is used for the next turn', async () => {
    const { url } = await agent(async (ctx) =>
      ctx.isNewTask
        ? { kind: 'status', state: 'input-required', message: { role: 'agent', parts: [{ type: 'text', text: '?' }] } }
        : completed(),
    );
    const hook = await webhook();
    await send(url, 'later');
    resultOf(await rpc(url, 'tasks/pushNotification/set', { id: 'later', pushNotificationConfig: { url: hook.url } }));
    await send(url, 'later');
    await eventually(async () => (hook.received.length >= 2 ? true : undefined));
    const states = hook.received.map((r) => (JSON.parse(r.body.toString()) as PushNotificationPayload).status.state);
    expect(states).toEqual(['working', 'completed']);
  });

  test('a webhook answering 500 twice, then 200, gets the notification (retries)', async () => {
    const { url } = await agent(async () => completed());
    const hook = await webhook((n) => (n <= 2 ? 500 : 200));
    await send(url, 'retried', { url: hook.url });
    await eventually(async () => (hook.received.length >= 4 ? true : undefined));
    const bodies = hook.received.map((r) => r.body.toString());
    // attempts 1-3 carry the first notification (working), then the second (completed)
    expect(bodies[0]).toBe(bodies[1]);
    expect(bodies[1]).toBe(bodies[2]);
    expect(JSON.parse(bodies[3]!).status.state).toBe('completed');
  });

  test('a 4xx is not retried; a webhook failing every time is given up after the retries', async () => {
    const { logger, lines } = memoryLogger();
    const { url } = await agent(async () => completed(), { retries: 2 }, { logger });
    const refusing = await webhook(() => 404);
    await send(url, 'gone', { url: refusing.url });
    await eventually(async () => (lines().filter((l) => l.outcome === 'rejected').length === 2 ? true : undefined));
    expect(refusing.received).toHaveLength(2);
    const failing = await webhook(() => 503);
    await send(url, 'down', { url: failing.url });
    await eventually(async () => (lines().filter((l) => l.outcome === 'failed').length === 2 ? true : undefined));
    expect(failing.received).toHaveLength(6);
  });

  test('a webhook that never answers does not delay tasks/send', async () => {
    const held = gate<number>();
    const hook = await webhook(() => held.promise);
    const { url } = await agent(async () => completed('quick'), { timeoutMs: 60_000 });
    const task = resultOf(await send(url, 'unhindered', { url: hook.url }));
    expect(task.status.state).toBe('completed');
    // The webhook got the first notification and is still holding it: the answer came anyway.
    await eventually(async () => (hook.received.length === 1 ? true : undefined));
    await sleep(50);
    expect(hook.received).toHaveLength(1);
    held.open(200);
    await eventually(async () => (hook.received.length === 2 ? true : undefined));
  });

  test('a slow webhook does not hold up other tasks', async () => {
    const held = gate<number>();
    const slowHook = await webhook(() => held.promise);
    const fastHook = await webhook();
    const { url } = await agent(async () => completed(), { timeoutMs: 60_000 });
    await send(url, 'slow-one', { url: slowHook.url });
    await send(url, 'fast-one', { url: fastHook.url });
    await eventually(async () => (fastHook.received.length === 2 ? true : undefined));
    expect(slowHook.received).toHaveLength(1);
    held.open(200);
  });

  test('the URL is checked again at delivery time: a host that now resolves privately gets nothing', async () => {
    const { logger, lines } = memoryLogger();
    let answer = '127.0.0.1';
    const resolve = async () => [{ address: answer, family: 4 }];
    const hook = await webhook();
    const port = new URL(hook.url).port;
    const release = gate();
    // The turn opens with one notification (working), then waits for the test.
    const { url } = await agent(
      async () => {
        await release.promise;
        return completed();
      },
      { resolve, allowlist: ['127.0.0.1'] },
      { logger, sendWaitMs: 20 },
    );
    await send(url, 'rebound', { url: `http://hooks.test:${port}/hook` });
    await eventually(async () => (hook.received.length === 1 ? true : undefined));
    answer = '10.9.8.7'; // the name now points inside: refused before any connection is made
    release.open();
    await eventually(async () => (lines().some((l) => l.outcome === 'refused') ? true : undefined));
    expect(hook.received).toHaveLength(1);
  });
});

describe('the receiver helper refuses forged notifications', () => {
  let jwksUrl: string;
  let hook: Awaited<ReturnType<typeof webhook>>;
  beforeAll(async () => {
    const { url } = await agent(async () => completed());
    jwksUrl = `${url}/.well-known/jwks.json`;
    hook = await webhook();
    await send(url, 'genuine', { url: hook.url, token: 't' });
    await eventually(async () => (hook.received.length >= 1 ? true : undefined));
  });

  const fresh = () => createPushNotificationVerifier({ jwksUrl, expectedToken: 't' });

  test('a genuine notification passes', async () => {
    await expect(fresh().verify(hook.received[0]!)).resolves.toMatchObject({ payload: { taskId: 'genuine' } });
  });

  test('a tampered body is refused', async () => {
    const { headers, body } = hook.received[0]!;
    const tampered = Buffer.from(body.toString().replace('genuine', 'tampered'));
    await expect(fresh().verify({ headers, body: tampered })).rejects.toMatchObject({ reason: 'body-mismatch' });
  });

  test('a token signed by another key (same kid) is refused', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const { body } = hook.received[0]!;
    const forged = await new SignJWT({ request_body_sha256: (await import('node:crypto')).createHash('sha256').update(body).digest('hex') })
      .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(other);
    await expect(
      fresh().verify({ headers: { authorization: `Bearer ${forged}`, 'x-a2a-notification-token': 't' }, body }),
    ).rejects.toMatchObject({ reason: 'invalid-signature' });
  });

  test('an old iat is refused (older than 5 minutes)', async () => {
    const { body } = hook.received[0]!;
    const old = await new SignJWT({ request_body_sha256: (await import('node:crypto')).createHash('sha256').update(body).digest('hex') })
      .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setJti(randomUUID())
      .sign(privateKey);
    await expect(
      fresh().verify({ headers: { authorization: `Bearer ${old}`, 'x-a2a-notification-token': 't' }, body }),
    ).rejects.toMatchObject({ reason: 'too-old' });
  });

  test('a replayed jti is refused', async () => {
    const verifier = fresh();
    await verifier.verify(hook.received[0]!);
    await expect(verifier.verify(hook.received[0]!)).rejects.toMatchObject({ reason: 'replayed' });
  });

  test('a wrong or missing notification token is refused', async () => {
    const { headers, body } = hook.received[0]!;
    await expect(fresh().verify({ headers: { ...headers, 'x-a2a-notification-token': 'nope' }, body })).rejects.toMatchObject({
      reason: 'bad-token',
    });
    await expect(fresh().verify({ headers: { authorization: headers.authorization }, body })).rejects.toMatchObject({
      reason: 'bad-token',
    });
  });

  test('alg none and a missing Authorization are refused', async () => {
    const { body } = hook.received[0]!;
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`;
    await expect(fresh().verify({ headers: { authorization: `Bearer ${none}` }, body })).rejects.toBeInstanceOf(PushVerificationError);
    await expect(fresh().verify({ headers: {}, body })).rejects.toMatchObject({ reason: 'missing-authorization' });
  });

  test('the Express receiver answers 204 to a genuine notification and 401 to a forged one', async () => {
    const got: unknown[] = [];
    const receiver = await serve(
      express().use('/in', pushNotificationReceiver({ jwksUrl, onNotification: (n) => void got.push(n.payload) })),
    );
    const { headers, body } = hook.received[0]!;
    const forward = (b: Buffer) =>
      fetch(`${receiver.url}/in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: headers.authorization as string },
        body: b,
      });
    expect((await forward(body)).status).toBe(204);
    expect((await forward(Buffer.from(body.toString().replace('genuine', 'other')))).status).toBe(401);
    expect(got).toEqual([expect.objectContaining({ taskId: 'genuine' })]);
    expect(await (await fetch(`${receiver.url}/in?validationToken=abc`)).text()).toBe('abc');
  });
});

describe('pushNotificationOptionsFromEnv', () => {
  test('reads the allow-list, a JWK or PEM key, and the ownership switch', async () => {
    const { pushNotificationOptionsFromEnv } = await import('../src/env.js');
    expect(pushNotificationOptionsFromEnv({})).toEqual({});
    const pem = (privateKey.export({ format: 'pem', type: 'pkcs8' }) as string).replace(/\n/g, '\\n');
    expect(
      pushNotificationOptionsFromEnv({
        A2A_PUSH_ALLOWLIST: ' localhost, 10.0.0.0/8 ,',
        A2A_PUSH_SIGNING_KEY: pem,
        A2A_PUSH_VERIFY_OWNERSHIP: 'true',
      }),
    ).toEqual({
      allowlist: ['localhost', '10.0.0.0/8'],
      signingKey: pem.replace(/\\n/g, '\n'),
      verifyOwnership: true,
    });
    expect(pushNotificationOptionsFromEnv({ A2A_PUSH_SIGNING_KEY: JSON.stringify(signingKey) }).signingKey).toEqual(signingKey);
    expect(() => pushNotificationOptionsFromEnv({ A2A_PUSH_SIGNING_KEY: '{oops' })).toThrow(/not valid JSON/);
  });
});
