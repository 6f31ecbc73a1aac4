import express from 'express';
import { createHash, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import request from 'supertest';
import { SignJWT, type JWK } from 'jose';
import { collect, openStream, rpc, serverPool } from 'a2a-testing';
import {
  apiKey,
  bearerJwt,
  completed,
  customAuth,
  inputRequired,
  working,
  type AuthOptions,
  type Principal,
  type TaskContext,
  type TaskHandler,
} from '../src/index.js';
import { matchApiKey } from '../src/core/auth.js';
import { appWith, gate, memoryLogger, resultOf, sendRequest, userText } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

// A real JWKS endpoint on loopback whose keys can be rotated during a test.
function keyPair(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicJwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg: 'RS256', use: 'sig' } };
}
const first = keyPair('key-1');
const second = keyPair('key-2');
const published: JWK[] = [first.publicJwk];
let jwksUrl: string;
beforeAll(async () => {
  const server = await serve(express().get('/jwks.json', (_req, res) => void res.json({ keys: published })));
  jwksUrl = `${server.url}/jwks.json`;
});

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'a2a-agent';

async function token(
  claims: Record<string, unknown> = {},
  {
    key = first.privateKey,
    kid = first.kid,
    alg = 'RS256',
    iat,
    exp = '5m',
    nbf,
  }: { key?: KeyObject | Uint8Array; kid?: string; alg?: string; iat?: number; exp?: string | number | null; nbf?: number } = {},
): Promise<string> {
  const jwt = new SignJWT({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, ...claims }).setProtectedHeader({ alg, kid }).setJti(randomUUID());
  jwt.setIssuedAt(iat);
  if (exp !== null) jwt.setExpirationTime(exp);
  if (nbf !== undefined) jwt.setNotBefore(nbf);
  return jwt.sign(key);
}

const bearer = () => bearerJwt({ jwksUrl, issuer: ISSUER, audience: AUDIENCE, jwksCooldownMs: 0 });
const keys = () => apiKey({ keys: { 'key-for-alice-0001': 'alice', 'key-for-bob-00002': 'bob' } });

let seenPrincipal: Principal | undefined;
const recordPrincipal: TaskHandler = async (ctx: TaskContext) => {
  seenPrincipal = ctx.principal;
  return completed();
};

function app(auth: AuthOptions, handler: TaskHandler = recordPrincipal, extra = {}) {
  return appWith(handler, { auth, ...extra }).app;
}

const post = (target: express.Express, body: unknown, headers: Record<string, string> = {}) =>
  request(target).post('/').set('Content-Type', 'application/json').set(headers).send(JSON.stringify(body));

describe('bearer JWTs (jose, against a JWKS on loopback)', () => {
  const target = () => app({ strategies: [bearer()] });

  test('a valid token is served and its subject is the principal', async () => {
    const res = await post(target(), sendRequest('jwt-ok', 'x'), { Authorization: `Bearer ${await token()}` });
    expect(res.status).toBe(200);
    expect(resultOf(res.body).status.state).toBe('completed');
    expect(seenPrincipal).toMatchObject({ id: 'alice', scheme: 'Bearer', claims: { iss: ISSUER } });
  });

  const now = Math.floor(Date.now() / 1000);
  test.each([
    ['missing', async () => undefined],
    ['malformed', async () => 'Bearer not.a.jwt'],
    ['expired', async () => `Bearer ${await token({}, { iat: now - 7200, exp: now - 3600 })}`],
    ['not yet valid', async () => `Bearer ${await token({}, { nbf: now + 3600 })}`],
    ['from the wrong issuer', async () => `Bearer ${await token({ iss: 'https://evil.example' })}`],
    ['for the wrong audience', async () => `Bearer ${await token({ aud: 'someone-else' })}`],
    ['signed by another key (same kid)', async () => `Bearer ${await token({}, { key: keyPair('key-1').privateKey })}`],
    ['without exp', async () => `Bearer ${await token({}, { exp: null })}`],
    ['without a subject', async () => `Bearer ${await token({ sub: undefined })}`],
    [
      'alg none',
      async () =>
        `Bearer ${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: now + 600 })).toString('base64url')}.`,
    ],
    [
      'HS256 signed with the public key (algorithm confusion)',
      async () => `Bearer ${await token({}, { alg: 'HS256', key: Buffer.from(JSON.stringify(first.publicJwk)) })}`,
    ],
  ])('a token %s → 401, WWW-Authenticate, -32007 with the id', async (_, header) => {
    const authorization = await header();
    const res = await post(target(), sendRequest('jwt-refused', 'x', {}, 'r-1'), authorization ? { Authorization: authorization } : {});
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="a2a"');
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 'r-1', error: { code: -32007, message: 'Authentication required' } });
    expect(res.body).not.toHaveProperty('result');
  });

  test('key rotation: a token with a new kid works once the JWKS publishes it, without a restart', async () => {
    const target = app({ strategies: [bearer()] });
    expect((await post(target, sendRequest('rot-1', 'x'), { Authorization: `Bearer ${await token()}` })).status).toBe(200);
    const rotated = `Bearer ${await token({}, { key: second.privateKey, kid: second.kid })}`;
    expect((await post(target, sendRequest('rot-2', 'x'), { Authorization: rotated })).status).toBe(401);
    published.push(second.publicJwk);
    expect((await post(target, sendRequest('rot-3', 'x'), { Authorization: rotated })).status).toBe(200);
  });

  test('a JWKS that cannot be read is asked once for the calls of jwksCooldownMs, each refused at once ("provider unavailable"), and again after it', async () => {
    let answering = false;
    let asked = 0;
    const keysServer = await serve(
      express().get('/jwks.json', (_req, res) => {
        asked++;
        if (answering) res.json({ keys: published });
        else res.status(503).end();
      }),
    );
    const cooldown = 1_000;
    const target = app({
      strategies: [bearerJwt({ jwksUrl: `${keysServer.url}/jwks.json`, issuer: ISSUER, audience: AUDIENCE, jwksCooldownMs: cooldown })],
    });
    const authorization = { Authorization: `Bearer ${await token()}` };
    for (let i = 0; i < 20; i++) {
      const res = await post(target, sendRequest(`jwks-down-${i}`, 'x'), authorization);
      expect(res.status).toBe(401);
      expect(JSON.stringify(res.body.error)).toContain(`provider unavailable: the key set (${keysServer.url}/jwks.json) could not be read`);
    }
    expect(asked).toBe(1);
    // A token that is not a JWT never asks it.
    expect((await post(target, sendRequest('jwks-garbage', 'x'), { Authorization: 'Bearer garbage' })).status).toBe(401);
    expect(asked).toBe(1);
    answering = true;
    await new Promise((resolve) => setTimeout(resolve, cooldown + 200));
    expect((await post(target, sendRequest('jwks-back', 'x'), authorization)).status).toBe(200);
    expect(asked).toBe(2);
  });

  test('a public key or a shared secret can stand in for the JWKS', async () => {
    const withKey = app({ strategies: [bearerJwt({ publicKey: first.publicJwk, issuer: ISSUER })] });
    expect((await post(withKey, sendRequest('pk', 'x'), { Authorization: `Bearer ${await token()}` })).status).toBe(200);
    const secret = 'a-shared-secret-of-at-least-32-bytes!';
    const withSecret = app({ strategies: [bearerJwt({ secret, audience: AUDIENCE })] });
    const hs = await token({}, { alg: 'HS256', key: Buffer.from(secret) });
    expect((await post(withSecret, sendRequest('hs', 'x'), { Authorization: `Bearer ${hs}` })).status).toBe(200);
    expect((await post(withSecret, sendRequest('hs2', 'x'), { Authorization: `Bearer ${await token()}` })).status).toBe(401);
  });

  test.each([
    [{}, /exactly one/],
    [{ secret: 'short' }, /32 bytes/],
    [{ secret: 'x'.repeat(32), algorithms: ['none'] }, /none/],
  ])('bearerJwt(%p) is a TypeError', (options, message) => {
    expect(() => bearerJwt(options)).toThrow(message);
  });
});

describe('API keys', () => {
  const target = () => app({ strategies: [keys()] });

  test('a known key is served as its principal', async () => {
    expect((await post(target(), sendRequest('k-ok', 'x'), { 'X-API-Key': 'key-for-bob-00002' })).status).toBe(200);
    expect(seenPrincipal).toEqual({ id: 'bob', scheme: 'ApiKey' });
  });

  test.each([
    ['missing', undefined],
    ['unknown', 'no-such-key'],
    ['wrong in its last character only', 'key-for-alice-0002'],
    ['a prefix of a real key', 'key-for-alice'],
    ['empty', ''],
  ])('a key that is %s → 401 with the ApiKey challenge', async (_, key) => {
    const res = await post(target(), sendRequest('k-no', 'x', {}, 7), key === undefined ? {} : { 'X-API-Key': key });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('ApiKey header="X-API-Key"');
    expect(res.body).toMatchObject({ id: 7, error: { code: -32007 } });
  });

  test('the header name is configurable', async () => {
    const custom = app({ strategies: [apiKey({ keys: { secret123: 'carol' }, header: 'X-Agent-Key' })] });
    expect((await post(custom, sendRequest('h', 'x'), { 'X-Agent-Key': 'secret123' })).status).toBe(200);
    expect((await post(custom, sendRequest('h', 'x'), { 'X-API-Key': 'secret123' })).status).toBe(401);
  });

  test('keys are compared as fixed-length digests, every key every time (no early exit)', () => {
    const digest = (k: string) => createHash('sha256').update(k).digest();
    const table = [
      { digest: digest('aaaa'), principal: 'first' },
      { digest: digest('aaaa'), principal: 'duplicate' },
      { digest: digest('bbbb'), principal: 'other' },
    ];
    // The first match wins although the loop went on to compare the rest.
    expect(matchApiKey('aaaa', table)).toBe('first');
    expect(matchApiKey('bbbb', table)).toBe('other');
    // Presented keys of any length compare without error (timingSafeEqual needs equal lengths).
    expect(matchApiKey('a', table)).toBeUndefined();
    expect(matchApiKey('a'.repeat(10_000), table)).toBeUndefined();
  });
});

describe('several strategies, refusals, authorization', () => {
  test('strategies combine: either credential is accepted; a 401 names both schemes', async () => {
    const target = app({ strategies: [bearer(), keys()] });
    expect((await post(target, sendRequest('c1', 'x'), { Authorization: `Bearer ${await token()}` })).status).toBe(200);
    expect((await post(target, sendRequest('c2', 'x'), { 'X-API-Key': 'key-for-bob-00002' })).status).toBe(200);
    const refused = await post(target, sendRequest('c3', 'x'));
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="a2a", ApiKey header="X-API-Key"');
  });

  test('a custom strategy', async () => {
    const target = app({
      strategies: [customAuth('Mutual', (call) => (call.headers['x-client-cert'] === 'ok' ? { id: 'svc', scheme: 'Mutual' } : undefined))],
    });
    expect((await post(target, sendRequest('m', 'x'), { 'X-Client-Cert': 'ok' })).status).toBe(200);
    expect((await post(target, sendRequest('m', 'x'))).status).toBe(401);
  });

  test('an unreadable body from an unauthenticated client is still a 401 (id null), not a parse error', async () => {
    const res = await post(app({ strategies: [keys()] }), '{broken');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ id: null, error: { code: -32007 } });
  });

  test('a refused client cannot make the server read a large body: 401, id null, after 64 KiB', async () => {
    const server = await serve(app({ strategies: [keys()] }));
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 'big',
      method: 'tasks/send',
      params: { id: 't', message: userText('x'.repeat(1024 * 1024)) },
    });
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big }).catch(
      (e: unknown) => e,
    );
    // The server answers before reading it all, and closes the connection.
    if (res instanceof Response) {
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ id: null, error: { code: -32007 } });
    } else {
      expect(String((res as Error).cause ?? res)).toMatch(/EPIPE|ECONNRESET|other side closed|SocketError/);
    }
    // A small refused body still gets its id echoed.
    const small = await rpc(server.url, 'tasks/get', { id: 't' }, { id: 'small' });
    expect(small).toMatchObject({ id: 'small', httpStatus: 401 });
  });

  test("the authorization hook's refusal is HTTP 403 on every version and binding, in each version's own error", async () => {
    const { app: refusing } = appWith(async function* () {}, {
      auth: { strategies: [apiKey({ keys: { 'key-for-bob-00002': 'bob' } })], authorize: () => false },
    });
    const { url } = await serve(refusing);
    const bob = { 'content-type': 'application/json', 'x-api-key': 'key-for-bob-00002' };
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${url}${path}`, { method: 'POST', headers: { ...bob, ...headers }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const rpcCall = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 7, method, params });
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] };
    expect(await post('/', rpcCall('tasks/send', { id: 'refused-01', message: userText('x') }))).toMatchObject({
      status: 403,
      body: { error: { code: -32008 } },
    });
    const message03 = { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'x' }] };
    expect(await post('/v0.3', rpcCall('message/send', { message: message03 }))).toMatchObject({
      status: 403,
      body: { error: { code: -32008 } },
    });
    // 1.0 JSON-RPC says it with -32000 and PERMISSION_DENIED: still a refusal, still 403 (it was 200).
    expect(await post('/v1', rpcCall('SendMessage', { message }), { 'a2a-version': '1.0' })).toMatchObject({
      status: 403,
      body: { error: { code: -32000, data: [{ reason: 'PERMISSION_DENIED' }] } },
    });
    expect(await post('/v1/message:send', { message }, { 'a2a-version': '1.0' })).toMatchObject({
      status: 403,
      body: { error: { code: 403, status: 'PERMISSION_DENIED' } },
    });
  });

  test("the authorization hook's refusal → 403 with -32008", async () => {
    const target = app({
      strategies: [keys()],
      authorize: ({ principal, operation }) => !(principal.id === 'bob' && operation === 'SendMessage'),
    });
    const refused = await post(target, sendRequest('az', 'x', {}, 'a'), { 'X-API-Key': 'key-for-bob-00002' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ id: 'a', error: { code: -32008, message: 'Authorization failed' } });
    expect((await post(target, sendRequest('az', 'x'), { 'X-API-Key': 'key-for-alice-0001' })).status).toBe(200);
    expect(
      (await post(target, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: 'az' } }, { 'X-API-Key': 'key-for-bob-00002' })).body
        .error.code,
    ).toBe(-32001);
  });

  test('auth on a streaming method is checked before any SSE header is written', async () => {
    const server = await serve(
      app({ strategies: [keys()] }, async function* () {
        yield working();
        yield completed();
      }),
    );
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 's', method: 'tasks/sendSubscribe', params: { id: 'never', message: userText('x') } }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toMatchObject({ id: 's', error: { code: -32007 } });
    expect((await rpc(server.url, 'tasks/get', { id: 'never' }, { headers: { 'X-API-Key': 'key-for-alice-0001' } })).error?.code).toBe(
      -32001,
    );
  });
});

describe('task ownership', () => {
  test('a task created by A is invisible to B on every method, streams and push config included', async () => {
    const waiting = gate();
    const handler: TaskHandler = async function* (ctx) {
      if (ctx.isNewTask) return yield inputRequired('more?');
      yield working();
      await waiting.promise;
      yield completed();
    };
    const { app: target } = appWith(handler, { auth: { strategies: [keys()] }, pushNotifications: { allowlist: ['127.0.0.1'] } });
    const server = await serve(target);
    const alice = { headers: { 'X-API-Key': 'key-for-alice-0001' } };
    const bob = { headers: { 'X-API-Key': 'key-for-bob-00002' } };
    resultOf(await rpc(server.url, 'tasks/send', { id: 'alices', message: userText('hi') }, alice));

    const attempts: [string, unknown][] = [
      ['tasks/get', { id: 'alices' }],
      ['tasks/cancel', { id: 'alices' }],
      ['tasks/send', { id: 'alices', message: userText('hijack') }],
      ['tasks/pushNotification/get', { id: 'alices' }],
      ['tasks/pushNotification/set', { id: 'alices', pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } }],
      ['tasks/resubscribe', { id: 'alices' }],
      ['tasks/sendSubscribe', { id: 'alices', message: userText('hijack') }],
    ];
    for (const [method, params] of attempts) {
      const res = await rpc(server.url, method, params, bob);
      expect([method, res.error]).toEqual([method, { code: -32001, message: 'Task not found', data: { taskId: 'alices' } }]);
    }
    // Alice still sees her task unchanged, and can stream it.
    const mine = resultOf(await rpc(server.url, 'tasks/get', { id: 'alices', historyLength: 10 }, alice));
    expect(mine.status.state).toBe('input-required');
    expect(mine.history).toHaveLength(2);
    const events = await collect(await openStream(server.url, 'tasks/resubscribe', { id: 'alices' }, alice));
    expect(events).toHaveLength(1);
    waiting.open();
  });
});

describe('principals with the same name', () => {
  test("a bearer token's alice, an API key's alice and another issuer's alice each own their own tasks", async () => {
    const OTHER = 'https://other-issuer.example';
    const target = app(
      { strategies: [bearerJwt({ jwksUrl, issuer: [ISSUER, OTHER], audience: AUDIENCE, jwksCooldownMs: 0 }), keys()] },
      async function* () {
        yield inputRequired('more?');
      },
    );
    const server = await serve(target);
    const viaKey = { headers: { 'X-API-Key': 'key-for-alice-0001' } };
    const viaToken = { headers: { Authorization: `Bearer ${await token()}` } };
    const viaOtherIssuer = { headers: { Authorization: `Bearer ${await token({ iss: OTHER })}` } };
    const owners = [
      ['key', viaKey],
      ['token', viaToken],
      ['other issuer', viaOtherIssuer],
    ] as const;
    for (const [name, as] of owners) resultOf(await rpc(server.url, 'tasks/send', { id: `of-${name}`, message: userText('hi') }, as));
    for (const [name, as] of owners) {
      for (const [other] of owners) {
        const res = await rpc(server.url, 'tasks/get', { id: `of-${other}` }, as);
        expect([name, other, res.error?.code ?? 'visible']).toEqual([name, other, name === other ? 'visible' : -32001]);
      }
    }
  });
});

describe('API keys that an unset variable would make', () => {
  test.each([
    ['an empty key', { '': 'alice' }, /a key is empty/],
    ['a blank key', { '  ': 'alice' }, /a key is blank/],
    ['the key "undefined"', { undefined: 'alice' }, /a key is the word "undefined"/],
    ['the key "null"', { NULL: 'alice' }, /a key is the word "NULL"/],
    ['an empty principal', { 'key-for-alice-0001': '' }, /the principal of key 18 characters, starting "ke" is empty/],
    ['the principal "undefined"', { 'key-for-alice-0001': 'undefined' }, /the principal .* is the word "undefined"/],
  ])('%s is a TypeError when the strategy is made', (_, keys, message) => {
    expect(() => apiKey({ keys: keys as Record<string, string> })).toThrow(TypeError);
    expect(() => apiKey({ keys: keys as Record<string, string> })).toThrow(message);
  });

  test('the error never shows a real key', () => {
    expect(() => apiKey({ keys: { 'super-secret-key-123': ' ' } })).toThrow(
      'apiKey: the principal of key 20 characters, starting "su" is blank',
    );
  });

  test('A2A_API_KEYS refuses the same, and a key given twice', async () => {
    const { authOptionsFromEnv } = await import('../src/env.js');
    expect(() => authOptionsFromEnv({ A2A_API_KEYS: 'undefined=alice' })).toThrow(/the word "undefined"/);
    expect(() => authOptionsFromEnv({ A2A_API_KEYS: 'k1=alice,k1=bob' })).toThrow(
      'A2A_API_KEYS: a key appears twice; give each principal its own key',
    );
    expect(() => authOptionsFromEnv({ A2A_API_KEYS: 'k1=null' })).toThrow(/the principal .* is the word "null"/);
  });
});

describe('the card and the logs', () => {
  test('the card lists the schemes and the API key header, and stays public by default', async () => {
    const target = app({ strategies: [bearer(), keys()] });
    const card = (await request(target).get('/.well-known/agent.json')).body;
    expect(card.authentication).toEqual({
      schemes: ['Bearer', 'ApiKey'],
      credentials: JSON.stringify({ in: 'header', name: 'X-API-Key' }),
    });
  });

  test('protectCard requires credentials for the card too', async () => {
    const target = app({ strategies: [keys()], protectCard: true });
    const refused = await request(target).get('/.well-known/agent.json');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('ApiKey header="X-API-Key"');
    expect((await request(target).get('/.well-known/agent.json').set('X-API-Key', 'key-for-alice-0001')).body.name).toBe('Test Agent');
  });

  test('a card that sets authentication itself while auth is configured is refused', () => {
    expect(() =>
      appWith(recordPrincipal, {
        auth: { strategies: [keys()] },
        card: { name: 'x', version: '1', authentication: { schemes: ['Basic'] } },
      }),
    ).toThrow(/authentication/);
  });

  test('logs carry the principal id, never the credentials', async () => {
    const { logger, lines } = memoryLogger();
    const target = appWith(recordPrincipal, { auth: { strategies: [bearer(), keys()] }, logger }).app;
    const jwt = await token();
    await post(target, sendRequest('l1', 'x'), { Authorization: `Bearer ${jwt}` });
    await post(target, sendRequest('l2', 'x'), { 'X-API-Key': 'key-for-bob-00002' });
    await post(target, sendRequest('l3', 'x'), { 'X-API-Key': 'wrong-key-value' });
    const all = JSON.stringify(lines());
    expect(all).not.toContain(jwt);
    expect(all).not.toContain('key-for-bob-00002');
    expect(all).not.toContain('wrong-key-value');
    expect(
      lines()
        .filter((l) => l.msg === 'a2a call')
        .map((l) => l.principal),
    ).toEqual(['alice', 'bob']);
    expect(lines().find((l) => l.msg === 'a2a call refused')).toMatchObject({ code: -32007 });
  });

  test('options.auth without strategies is a TypeError', () => {
    expect(() => appWith(recordPrincipal, { auth: { strategies: [] } })).toThrow(/strategies/);
  });
});

describe('authOptionsFromEnv', () => {
  test('nothing set → no authentication', async () => {
    const { authOptionsFromEnv } = await import('../src/env.js');
    expect(authOptionsFromEnv({})).toBeUndefined();
  });

  test('A2A_API_KEYS and A2A_JWKS_URL (with issuer and audience) become strategies that work', async () => {
    const { authOptionsFromEnv } = await import('../src/env.js');
    const auth = authOptionsFromEnv({
      A2A_API_KEYS: 'k=1=alice, other=bob',
      A2A_JWKS_URL: jwksUrl,
      A2A_JWT_ISSUER: ISSUER,
      A2A_JWT_AUDIENCE: AUDIENCE,
    })!;
    expect(auth.strategies.map((s) => s.scheme)).toEqual(['Bearer', 'ApiKey']);
    const target = app(auth);
    expect((await post(target, sendRequest('e1', 'x'), { 'X-API-Key': 'k=1' })).status).toBe(200);
    expect(seenPrincipal?.id).toBe('alice');
    expect((await post(target, sendRequest('e2', 'x'), { Authorization: `Bearer ${await token()}` })).status).toBe(200);
    expect((await post(target, sendRequest('e3', 'x'), { Authorization: `Bearer ${await token({ aud: 'other' })}` })).status).toBe(401);
  });

  test('a malformed A2A_API_KEYS is a TypeError', async () => {
    const { authOptionsFromEnv } = await import('../src/env.js');
    expect(() => authOptionsFromEnv({ A2A_API_KEYS: 'no-principal' })).toThrow(/key=principal/);
  });
});
