// Signed agent cards (spec 1.0 8.4): the router signs each 1.0 and 0.3 card it serves (the
// extended card too), naming the URL its operator gave whatever Host a client sends, and serves
// the public keys; a2a-client checks them; and both agree with the official SDK 1.x: a card the
// kit signs verifies with the SDK's verifier, a card the SDK's signer signs verifies with ours,
// and a card with one byte changed fails both. Real servers on loopback.
import { execFile } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import { pino } from 'pino';
import {
  AgentCard as SdkAgentCard,
  generateAgentCardSignature,
  Role,
  type SendMessageRequest,
  TaskState,
  verifyAgentCardSignature,
} from 'a2a-sdk-1';
import { ClientFactory } from 'a2a-sdk-1/client';
import { verifyCardSignature } from 'a2a-client';
import { a2aRouter, apiKey, completed, type A2ARouterOptions } from 'a2a-express';
import { canonicalAgentCard10 } from 'a2a-types/card-signing';
import { serverPool } from 'a2a-testing';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../packages/a2a-client/dist/cli.js');
const run = promisify(execFile);
const { serve, closeAll } = serverPool();
const routers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(routers.map((router) => router.close()));
  await closeAll();
});

type Json = Record<string, unknown>;
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');
const card = {
  name: 'Signed Agent',
  description: 'signs its cards',
  version: '1.0.0',
  skills: [{ id: 'echo', name: 'Echo', description: 'says it back', tags: ['echo'] }],
};

/**
 * A signing agent's cards name `card.url` (the router refuses to sign without it): the app listens
 * first, so that its URL is known, and the router is mounted then.
 */
async function agent(options: Partial<A2ARouterOptions> = {}, { trustProxy = false } = {}): Promise<string> {
  const app = express();
  if (trustProxy) app.set('trust proxy', true);
  const { url } = await serve(app);
  const router = a2aRouter(
    async function* () {
      yield completed();
    },
    { card: { ...card, url: `${url}/` }, logger: pino({ level: 'silent' }), ...options } as A2ARouterOptions,
  );
  routers.push(router);
  app.use(router);
  return url;
}

/** A JSON answer to a request sent with `headers`, which may name another Host than the address dialled (fetch will not). */
const requestJson = (url: string, headers: Record<string, string>, body?: unknown): Promise<Json> =>
  new Promise((resolve, reject) => {
    const sent = request(url, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text) as Json));
    }).on('error', reject);
    sent.end(body === undefined ? undefined : JSON.stringify(body));
  });
const card10 = (url: string, headers: Record<string, string> = {}): Promise<Json> =>
  requestJson(`${url}/.well-known/agent-card.json`, { 'A2A-Version': '1.0', ...headers });
const headerOf = (signature: { protected: string }) => JSON.parse(Buffer.from(signature.protected, 'base64url').toString()) as Json;
type JWK = Record<string, unknown> & { kid?: string; d?: string };
const jwkOf = (key: KeyObject): JWK => key.export({ format: 'jwk' }) as JWK;
const publicJwk = async (key: KeyObject, kid: string): Promise<JWK> => ({ ...jwkOf(key), kid });

describe('the router signs its cards', () => {
  test('1.0 and 0.3 cards: a JWS per key over the canonical card, its protected header alg, kid and typ; each verifies against the JWKS the router serves', async () => {
    const url = await agent({ cardSigning: { privateKey: ec.privateKey, kid: 'card-key-1' } });
    const signed = await card10(url);
    const signatures = signed.signatures as { protected: string; signature: string }[];
    expect(signatures).toHaveLength(1);
    expect(headerOf(signatures[0]!)).toEqual({ alg: 'ES256', kid: 'card-key-1', typ: 'JOSE' });
    const jwks = `${url}/.well-known/jwks.json`;
    expect(await verifyCardSignature(signed, { keys: jwks })).toEqual({ signed: true, valid: true, kid: 'card-key-1' });
    const card03 = (await (await fetch(`${url}/v0.3/.well-known/agent-card.json`)).json()) as Json;
    expect(card03.signatures).toHaveLength(1);
    expect(await verifyCardSignature(card03, { keys: jwks })).toMatchObject({ valid: true, kid: 'card-key-1' });
    // The same card keeps its signature (and so its ETag): a client's conditional request is a 304.
    const first = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    const again = await fetch(`${url}/.well-known/agent-card.json`, {
      headers: { 'A2A-Version': '1.0', 'If-None-Match': first.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  test('a card is signed naming only card.url: a hostile Host, or X-Forwarded-Host/Proto behind `trust proxy`, changes neither its URLs nor its signature; without card.url the router refuses to sign', async () => {
    expect(() => a2aRouter(async () => undefined, { card, cardSigning: { privateKey: ec.privateKey, kid: 'k' } })).toThrow(
      'a2aRouter: cardSigning needs card.url, the public URL the router is mounted at',
    );
    const url = await agent(
      {
        cardSigning: { privateKey: ec.privateKey, kid: 'k' },
        auth: { strategies: [apiKey({ keys: { 'key-1': 'alice' } })] },
        extendedCard: { description: 'the fuller card' },
      },
      { trustProxy: true },
    );
    const jwks = `${url}/.well-known/jwks.json`;
    const asked: Record<string, string>[] = [
      {},
      { Host: 'evil.example:8443' },
      { Host: 'evil.example:8443', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' },
      ...Array.from({ length: 8 }, (_, i) => ({ Host: `host-${i}.evil.example` })),
    ];
    const served = await Promise.all(asked.map((headers) => card10(url, headers)));
    for (const signed of served) {
      expect((signed.supportedInterfaces as Json[]).map((listed) => listed.url)).toEqual([
        `${url}/v1`,
        `${url}/v1`,
        `${url}/v0.3`,
        `${url}/v0.3`,
      ]);
      expect(await verifyCardSignature(signed, { keys: jwks })).toMatchObject({ valid: true });
    }
    // ECDSA signatures differ each time they are made: one signature is one card, signed once.
    expect(new Set(served.map((signed) => JSON.stringify(signed.signatures))).size).toBe(1);
    const evil = { Host: 'evil.example:8443', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' };
    const card03 = await requestJson(`${url}/v0.3/.well-known/agent-card.json`, evil);
    expect(card03.url).toBe(`${url}/v0.3`);
    expect(await verifyCardSignature(card03, { keys: jwks })).toMatchObject({ valid: true });
    const extended = await requestJson(
      `${url}/v1`,
      { ...evil, 'content-type': 'application/json', 'A2A-Version': '1.0', 'X-API-Key': 'key-1' },
      { jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} },
    );
    expect(((extended.result as Json).supportedInterfaces as Json[])[0]!.url).toBe(`${url}/v1`);
    expect(await verifyCardSignature(extended.result as Json, { keys: jwks })).toMatchObject({ valid: true });
  });

  test('an unsigned card still names the host the client used (no card.url): only a signed card is pinned', async () => {
    const app = express().use(
      a2aRouter(
        async function* () {
          yield completed();
        },
        { card, logger: pino({ level: 'silent' }) },
      ),
    );
    const { url } = await serve(app);
    const unsigned = await card10(url, { Host: 'localhost:8443' });
    expect(unsigned.signatures).toBeUndefined();
    expect((unsigned.supportedInterfaces as Json[])[0]!.url).toBe('http://localhost:8443/v1');
  });

  test('key rotation: every key listed signs; a client that knows either key verifies; the JWKS lists both', async () => {
    const url = await agent({
      cardSigning: {
        keys: [
          { privateKey: ed.privateKey, kid: 'new' },
          { privateKey: ec.privateKey, kid: 'old' },
        ],
        jku: 'https://keys.example/jwks.json',
      },
    });
    const signed = await card10(url);
    const headers = (signed.signatures as { protected: string }[]).map(headerOf);
    expect(headers).toEqual([
      { alg: 'EdDSA', kid: 'new', typ: 'JOSE', jku: 'https://keys.example/jwks.json' },
      { alg: 'ES256', kid: 'old', typ: 'JOSE', jku: 'https://keys.example/jwks.json' },
    ]);
    const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    expect(jwks.keys.map((key) => key.kid)).toEqual(['new', 'old']);
    expect(jwks.keys.every((key) => key.d === undefined)).toBe(true);
    expect(await verifyCardSignature(signed, { keys: { keys: [await publicJwk(ec.publicKey, 'old')] } })).toMatchObject({
      valid: true,
      kid: 'old',
    });
    expect(await verifyCardSignature(signed, { keys: { keys: [await publicJwk(ed.publicKey, 'new')] } })).toMatchObject({
      valid: true,
      kid: 'new',
    });
  });

  test('the extended card is signed too', async () => {
    const url = await agent({
      auth: { strategies: [apiKey({ keys: { 'key-1': 'alice' } })] },
      extendedCard: { description: 'the fuller card' },
      cardSigning: { privateKey: ec.privateKey, kid: 'k' },
    });
    const answer = (await (
      await fetch(`${url}/v1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'X-API-Key': 'key-1' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }),
      })
    ).json()) as { result: Json };
    expect(answer.result.description).toBe('the fuller card');
    expect(await verifyCardSignature(answer.result, { keys: `${url}/.well-known/jwks.json` })).toMatchObject({ valid: true });
  });

  test('a card with one byte changed, or checked against other keys, or unsigned, is not valid, and says why', async () => {
    const url = await agent({ cardSigning: { privateKey: ec.privateKey, kid: 'k' } });
    const signed = await card10(url);
    const keys = `${url}/.well-known/jwks.json`;
    expect(await verifyCardSignature({ ...signed, name: 'Signed Agenu' }, { keys })).toEqual({
      signed: true,
      valid: false,
      kid: 'k',
      reason: 'the signature does not match the card',
    });
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(await verifyCardSignature(signed, { keys: { keys: [await publicJwk(other.publicKey, 'k')] } })).toMatchObject({ valid: false });
    expect(await verifyCardSignature(await card10(await agent()), { keys })).toEqual({
      signed: false,
      valid: false,
      reason: 'the card is not signed',
    });
  });

  test('a bad signing option is a TypeError when the router is made, saying what was expected', () => {
    const at = { ...card, url: 'http://127.0.0.1:1/' };
    const made = (cardSigning: unknown) => () => a2aRouter(async () => undefined, { card: at, cardSigning } as never);
    expect(made({ privateKey: 'not a key', kid: 'k' })).toThrow(/is not a private key/);
    expect(made({ privateKey: ec.privateKey, kid: '' })).toThrow(/needs a kid/);
    expect(made({ keys: [] })).toThrow(/at least one key/);
    // A JWK where { privateKey, kid } is meant, listed or alone.
    const jwk = { ...jwkOf(ec.privateKey), kid: 'k' };
    expect(made({ keys: [jwk] })).toThrow(
      "a2aRouter: cardSigning.keys[0] must be { privateKey, kid, alg? }, and is a JWK itself: give { privateKey: theJwk, kid: '...' }",
    );
    expect(made(jwk)).toThrow(
      /^a2aRouter: cardSigning must be \{ privateKey, kid, alg\? \} or \{ keys: \[\.\.\.\] \}, and is a JWK itself/,
    );
    expect(made({ keys: [{ kid: 'k' }] })).toThrow(
      'a2aRouter: cardSigning.keys[0] must be { privateKey, kid, alg? }: it has no privateKey',
    );
    expect(made({ keys: ['pem text'] })).toThrow('a2aRouter: cardSigning.keys[0] must be { privateKey, kid, alg? }, got string');
    expect(made('pem text')).toThrow(/^a2aRouter: cardSigning must be/);
    // The right shape still signs.
    expect(made({ keys: [{ privateKey: jwkOf(ec.privateKey), kid: 'k' }] })).not.toThrow();
  });
});

describe('with the official SDK 1.x', () => {
  test('its client reads a signed card, verifies it with its own verifier against the agent’s JWKS, and calls the agent', async () => {
    const url = await agent({ cardSigning: { privateKey: ec.privateKey, kid: 'kit-key' } });
    const client = await new ClientFactory().createFromUrl(url);
    const sdkCard = await client.getAgentCard();
    expect(sdkCard.signatures).toHaveLength(1);
    const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    await expect(
      verifyAgentCardSignature(async (kid) => jwks.keys.find((key) => key.kid === kid) as never)(sdkCard),
    ).resolves.toBeUndefined();
    const sent = (await client.sendMessage({
      message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'hi' } }] },
    } as unknown as SendMessageRequest)) as unknown as { status: { state: number } };
    expect(sent.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test('a card the kit signs verifies with the SDK’s verifier; with one byte changed it does not', async () => {
    const url = await agent({ cardSigning: { privateKey: ec.privateKey, kid: 'kit-key' } });
    const signed = await card10(url);
    const key = await publicJwk(ec.publicKey, 'kit-key');
    const sdkVerify = verifyAgentCardSignature(async (kid) => {
      expect(kid).toBe('kit-key');
      return key as never;
    });
    await expect(sdkVerify(SdkAgentCard.fromJSON(signed))).resolves.toBeUndefined();
    await expect(sdkVerify(SdkAgentCard.fromJSON({ ...signed, version: '1.0.1' }))).rejects.toThrow();
  });

  test('a card the SDK’s signer signs verifies with ours; with one byte changed it does not', async () => {
    const url = await agent();
    const served = await card10(url);
    const sign = generateAgentCardSignature(jwkOf(ec.privateKey) as never, { alg: 'ES256', kid: 'sdk-key', typ: 'JOSE' });
    const signedBySdk = SdkAgentCard.toJSON(await sign(SdkAgentCard.fromJSON(served))) as Json;
    const keys = { keys: [await publicJwk(ec.publicKey, 'sdk-key')] };
    expect(await verifyCardSignature(signedBySdk, { keys })).toEqual({ signed: true, valid: true, kid: 'sdk-key' });
    expect((await verifyCardSignature({ ...signedBySdk, description: 'signs its cardz' }, { keys })).valid).toBe(false);
    // Both sides canonicalize the card the same way.
    expect(canonicalAgentCard10(served)).toBe(canonicalAgentCard10(signedBySdk));
  });
});

test('a2a card --verify: exit 0 and who signed for a valid signature; exit 1 for an unsigned card, or keys that do not verify it', async () => {
  const signedUrl = await agent({ cardSigning: { privateKey: ec.privateKey, kid: 'cli-key' } });
  const ok = await run(process.execPath, [cli, 'card', signedUrl, '--protocol', '1.0', '--verify'], { timeout: 20_000 });
  expect(ok.stderr).toContain('signed, valid (kid cli-key');
  const unsigned = await run(process.execPath, [cli, 'card', await agent(), '--protocol', '1.0', '--verify'], { timeout: 20_000 }).catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(unsigned).toMatchObject({ code: 1, stderr: expect.stringContaining('unsigned') });
  const otherKeys = await run(
    process.execPath,
    [cli, 'card', signedUrl, '--protocol', '1.0', '--verify', '--jwks', `${await agent()}/.well-known/jwks.json`],
    {
      timeout: 20_000,
    },
  ).catch((error: { code: number; stderr: string }) => error);
  expect(otherKeys).toMatchObject({ code: 1, stderr: expect.stringContaining('signed, not valid') });
});
