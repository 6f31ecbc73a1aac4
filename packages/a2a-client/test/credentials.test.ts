// Credentials from the card, against real agents (a2aRouter on loopback, its gRPC beside it) and
// a loopback OAuth 2.0 / OpenID Connect issuer stand-in (an HTTP server in this file that issues
// ES256 JWTs for one client id and secret, serves its keys and its discovery document, and counts
// the tokens it issues). The client is given only what it holds, keyed by the card's scheme
// names; it reads the card and supplies what each scheme asks, on 1.0's three bindings, 0.3 and
// 0.1.0. The issuer rotating its keys (and the agent dropping the old ones) makes the agent
// refuse a cached token: the call is sent once more with a new one.
import express from 'express';
import { a2aRouter, apiKey, type AuthStrategy, bearerJwt, completed, oauth2Bearer, oidcBearer } from 'a2a-express';
import { pino } from 'pino';
import { serverPool } from 'a2a-testing';
import { A2AClient, A2AClient03, A2AClient10, type Binding10, type Credentials, OAuthTokenError } from '../src/index.js';
import { grpcTransport } from '../src/grpc.js';

const { serve, closeAll } = serverPool();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  await closeAll();
});

// ---- the issuer stand-in ------------------------------------------------------------------

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

/** An ES256 key pair and its kid, as an issuer rotating its keys makes a new one. */
async function newKey() {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { pair, kid: crypto.randomUUID(), jwk };
}

const CLIENT_ID = 'orchestrator';
const CLIENT_SECRET = 's3cret:with/odd chars';
const AUDIENCE = 'https://agent.test';

const issuer = {
  url: '',
  key: undefined as unknown as Awaited<ReturnType<typeof newKey>>,
  expiresIn: 3600,
  tokensIssued: 0,
  async sign(claims: Record<string, unknown>): Promise<string> {
    const header = b64url(JSON.stringify({ alg: 'ES256', kid: this.key.kid, typ: 'JWT' }));
    const payload = b64url(JSON.stringify(claims));
    // WebCrypto's ECDSA signature is r||s, as JWS has it.
    const signature = await crypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      this.key.pair.privateKey,
      Buffer.from(`${header}.${payload}`),
    );
    return `${header}.${payload}.${b64url(new Uint8Array(signature))}`;
  },
  async token(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return this.sign({ iss: this.url, aud: AUDIENCE, sub: CLIENT_ID, iat: now, exp: now + 3600 });
  },
};

beforeAll(async () => {
  issuer.key = await newKey();
  const app = express();
  app.post('/token', express.urlencoded({ extended: false }), async (req, res) => {
    const [id, secret] = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':')
      .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
    if (id !== CLIENT_ID || secret !== CLIENT_SECRET || req.body.grant_type !== 'client_credentials') {
      res.status(401).json({ error: 'invalid_client', error_description: 'unknown client or wrong secret' });
      return;
    }
    issuer.tokensIssued++;
    res.json({ access_token: await issuer.token(), token_type: 'Bearer', expires_in: issuer.expiresIn });
  });
  app.get('/jwks', (_req, res) => void res.json({ keys: [{ ...issuer.key.jwk, kid: issuer.key.kid, alg: 'ES256', use: 'sig' }] }));
  app.get(
    '/.well-known/openid-configuration',
    (_req, res) => void res.json({ issuer: issuer.url, token_endpoint: `${issuer.url}/token`, jwks_uri: `${issuer.url}/jwks` }),
  );
  issuer.url = (await serve(app))!.url;
});

// ---- agents --------------------------------------------------------------------------------

/** An agent with `strategy`, over HTTP and gRPC; `front` runs before the router (a check of a query key, say). */
async function agentWith(strategy: () => AuthStrategy, front?: express.RequestHandler) {
  const statuses: number[] = [];
  const router = a2aRouter(
    async function* () {
      yield completed('done');
    },
    { card: { name: 'Guarded', version: '1.0.0' }, logger: pino({ level: 'silent' }), auth: { strategies: [strategy()] } },
  );
  const app = express();
  app.use((_req, res, next) => {
    res.on('finish', () => statuses.push(res.statusCode));
    next();
  });
  if (front) app.use(front);
  const url = (await serve(app.use(router)))!.url;
  const { serveGrpc } = await import('a2a-express/grpc');
  const grpcServer = await serveGrpc(router, { port: 0, agentUrl: url });
  closers.push(async () => {
    await grpcServer.close({ graceMs: 100 });
    await router.close();
  });
  return { url, statuses };
}

/**
 * A strategy whose checker can be replaced, as a replica restarted after the issuer rotated its
 * keys: its key cache starts empty, and a token of the old key is refused.
 */
function replaceable(make: () => AuthStrategy) {
  let current = make();
  const strategy: AuthStrategy = { ...current, authenticate: (request) => current.authenticate(request) };
  return { strategy: () => strategy, restart: () => void (current = make()) };
}

const oauthChecker = () =>
  oauth2Bearer({
    flows: { clientCredentials: { tokenUrl: `${issuer.url}/token`, scopes: { 'agent:use': 'Call the agent' } } },
    jwksUrl: `${issuer.url}/jwks`,
    issuer: issuer.url,
    audience: AUDIENCE,
    jwksCooldownMs: 0,
  });

const message10 = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });
const message03 = (text: string) => ({
  message: { kind: 'message' as const, messageId: crypto.randomUUID(), role: 'user' as const, parts: [{ kind: 'text' as const, text }] },
});
const task01 = (text: string) => ({
  id: crypto.randomUUID(),
  message: { role: 'user' as const, parts: [{ type: 'text' as const, text }] },
});
const bindings: Binding10[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const client10 = (url: string, binding: Binding10, credentials: Credentials | undefined) =>
  new A2AClient10(url, { credentials, preferredBinding: binding, grpc: grpcTransport(), retry: false });

// ---- OAuth 2.0 client credentials ------------------------------------------------------------

describe('OAuth 2.0 client credentials from the card', () => {
  const held = { oauth2: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } };

  test.each(bindings)(
    '1.0 over %s: the token is fetched once and reused, refreshed before it expires, and a 401 after the keys rotate is sent once more with a new one',
    async (binding) => {
      const checker = replaceable(oauthChecker);
      const agent = await agentWith(checker.strategy);
      const card = await new A2AClient10(agent.url).getCard();
      expect(Object.keys(card.securitySchemes ?? {})).toEqual(['oauth2']);
      issuer.expiresIn = 3600;
      const client = client10(agent.url, binding, held);
      try {
        const before = issuer.tokensIssued;
        const sent = await client.sendMessage(message10('hi'));
        const taskId = 'task' in sent ? sent.task!.id : '';
        await client.getTask({ id: taskId });
        for await (const _ of client.streamMessage(message10('stream'))) void _;
        expect(issuer.tokensIssued - before).toBe(1);

        // The issuer rotates its keys; the agent, restarted, knows only the new one.
        issuer.key = await newKey();
        checker.restart();
        await client.getTask({ id: taskId });
        expect(issuer.tokensIssued - before).toBe(2);

        // A token with less than the margin left is fetched again before each call, not after a refusal.
        issuer.expiresIn = 5;
        const refusedBefore = agent.statuses.filter((s) => s === 401).length;
        const shortLived = client10(agent.url, binding, held);
        try {
          await shortLived.getTask({ id: taskId });
          await shortLived.getTask({ id: taskId });
          await shortLived.getTask({ id: taskId });
        } finally {
          shortLived.close();
        }
        expect(issuer.tokensIssued - before).toBe(2 + 3);
        expect(agent.statuses.filter((s) => s === 401).length).toBe(refusedBefore);
      } finally {
        issuer.expiresIn = 3600;
        client.close();
      }
    },
  );

  test('1.0: the card without credentials is refused; a wrong secret is an OAuthTokenError naming the endpoint and its error', async () => {
    const agent = await agentWith(oauthChecker);
    const client = client10(agent.url, 'JSONRPC', { oauth2: { clientId: CLIENT_ID, clientSecret: 'wrong' } });
    const error = await client.sendMessage(message10('hi')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthTokenError);
    expect((error as OAuthTokenError).message).toBe(
      `the token endpoint ${issuer.url}/token refused the client credentials: invalid_client: unknown client or wrong secret`,
    );
    expect((error as OAuthTokenError).error).toBe('invalid_client');
    await expect(client10(agent.url, 'JSONRPC', undefined).sendMessage(message10('hi'))).rejects.toThrow(/401|Authentication required/);
  });

  test('0.3 over JSON-RPC: the 0.3 card (OpenAPI flows) is read the same way', async () => {
    const agent = await agentWith(oauthChecker);
    const before = issuer.tokensIssued;
    const client = new A2AClient03(agent.url, { credentials: held });
    const task = await client.sendMessage(message03('hi'));
    await client.getTask({ id: (task as { id: string }).id });
    expect(issuer.tokensIssued - before).toBe(1);
  });
});

describe('OpenID Connect discovery from the card', () => {
  test.each(bindings)("1.0 over %s: the token endpoint is the card's openIdConnectUrl's", async (binding) => {
    const agent = await agentWith(() => oidcBearer({ issuer: issuer.url, audience: AUDIENCE }));
    const client = client10(agent.url, binding, { openid: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    const before = issuer.tokensIssued;
    try {
      const sent = await client.sendMessage(message10('hi'));
      expect('task' in sent && sent.task!.status.state).toBe('TASK_STATE_COMPLETED');
      expect(issuer.tokensIssued - before).toBe(1);
    } finally {
      client.close();
    }
  });
});

// ---- API keys and bearer tokens -------------------------------------------------------------

describe('API keys and bearer tokens from the card', () => {
  test.each(bindings)('an API key in its header, 1.0 over %s', async (binding) => {
    const agent = await agentWith(() => apiKey({ keys: { 'the-key': 'partner' }, header: 'X-Partner-Key' }));
    const client = client10(agent.url, binding, { apikey: 'the-key' });
    try {
      await expect(client.sendMessage(message10('hi'))).resolves.toHaveProperty('task');
      await expect(client10(agent.url, binding, { apikey: 'not-the-key' }).sendMessage(message10('hi'))).rejects.toThrow();
    } finally {
      client.close();
    }
  });

  test('an API key in its header, 0.3 and 0.1.0 (whose card has it in `authentication`)', async () => {
    const agent = await agentWith(() => apiKey({ keys: { 'the-key': 'partner' }, header: 'X-Partner-Key' }));
    await expect(new A2AClient03(agent.url, { credentials: { apikey: 'the-key' } }).sendMessage(message03('hi'))).resolves.toHaveProperty(
      'id',
    );
    await expect(new A2AClient(agent.url, { credentials: { ApiKey: 'the-key' } }).send(task01('hi'))).resolves.toHaveProperty('id');
  });

  test('an API key in the query, where the card puts it (1.0 over JSON-RPC and HTTP+JSON, 0.3)', async () => {
    // a2a-express reads keys from headers: the query's is moved into one by the agent's own front.
    const keyInQuery: AuthStrategy = {
      ...apiKey({ keys: { 'query-key': 'partner' }, header: 'x-from-query' }),
      cardCredentials: { in: 'query', name: 'api_key' },
    };
    const agent = await agentWith(
      () => keyInQuery,
      (req, _res, next) => {
        delete req.headers['x-from-query'];
        if (typeof req.query.api_key === 'string') req.headers['x-from-query'] = req.query.api_key;
        next();
      },
    );
    for (const binding of ['JSONRPC', 'HTTP+JSON'] as const)
      await expect(client10(agent.url, binding, { apikey: 'query-key' }).sendMessage(message10('hi'))).resolves.toHaveProperty('task');
    await expect(new A2AClient03(agent.url, { credentials: { apikey: 'query-key' } }).sendMessage(message03('hi'))).resolves.toHaveProperty(
      'id',
    );
    await expect(new A2AClient03(agent.url).sendMessage(message03('hi'))).rejects.toThrow(/401|Authentication required/);
  });

  test.each(bindings)('a bearer token, 1.0 over %s; and a function for what the map does not hold', async (binding) => {
    const agent = await agentWith(() => bearerJwt({ jwksUrl: `${issuer.url}/jwks`, issuer: issuer.url, audience: AUDIENCE }));
    const token = await issuer.token();
    const client = client10(agent.url, binding, { bearer: token });
    const asked: string[] = [];
    const byFunction = client10(agent.url, binding, ({ name, fresh }) => {
      asked.push(`${name}${fresh ? ' (fresh)' : ''}`);
      return token;
    });
    try {
      await expect(client.sendMessage(message10('hi'))).resolves.toHaveProperty('task');
      await expect(byFunction.sendMessage(message10('hi'))).resolves.toHaveProperty('task');
      expect(asked).toEqual(['bearer']);
    } finally {
      client.close();
      byFunction.close();
    }
  });

  test('a bearer token for 0.1.0 (`authentication.schemes: ["Bearer"]`), and a 401 resent once, with `fresh` asked for', async () => {
    const agent = await agentWith(() => bearerJwt({ jwksUrl: `${issuer.url}/jwks`, issuer: issuer.url, audience: AUDIENCE }));
    const good = await issuer.token();
    const asked: boolean[] = [];
    const client = new A2AClient(agent.url, {
      credentials: {
        Bearer: ({ fresh }) => {
          asked.push(fresh);
          return fresh ? good : 'not-a-token';
        },
      },
    });
    await expect(client.send(task01('hi'))).resolves.toHaveProperty('id');
    expect(asked).toEqual([false, true]);
    // Never more than once: a credential that stays wrong fails after one resend.
    const wrong: boolean[] = [];
    const stubborn = new A2AClient(agent.url, {
      credentials: {
        Bearer: ({ fresh }) => {
          wrong.push(fresh);
          return 'not-a-token';
        },
      },
    });
    await expect(stubborn.send(task01('hi'))).rejects.toThrow(/401|Authentication required/);
    expect(wrong).toEqual([false, true]);
  });
});
