// OAuth 2.0 and OpenID Connect: tokens from an OpenID Provider configured from its issuer URL
// alone (its discovery document and keys served by a local stand-in), tokens from an OAuth 2.0
// server declared with its flows, scopes held per operation, and the cards that declare them.
// Every server on loopback.
import { generateKeyPairSync } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { SignJWT } from 'jose';
import { rpc } from 'a2a-testing';
import { publishedSchemaValidator03 } from 'a2a-types/v0.3';
import { publishedSchemaValidator10 } from 'a2a-types/v1.0';
import { completed, oauth2Bearer, oidcBearer, requireScopes, type A2ARouterOptions, type TaskHandler } from '../src/index.js';
import { grpcAgents } from './grpc-agents.js';
import { message10 } from './helpers.js';

const agents = grpcAgents();
afterAll(() => agents.close());
const { serve } = agents;

type Json = Record<string, unknown>;
const V1 = { 'A2A-Version': '1.0' };
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicJwk = { ...(publicKey.export({ format: 'jwk' }) as Json), kid: 'issuer-key', alg: 'ES256', use: 'sig' };

/**
 * An OpenID Provider's public side, on loopback: its discovery document and its keys. `issuer`
 * may be made to lie; `state` makes the document answer 503 (`down`) or never (`hang`).
 * `discoveries` counts the documents served, `asked` every request for one.
 */
async function issuerStandIn(
  options: { claimedIssuer?: (url: string) => string; state?: () => 'up' | 'down' | 'hang' } = {},
): Promise<{ url: string; discoveries: () => number; asked: () => number }> {
  let discoveries = 0;
  let asked = 0;
  let url = '';
  const app = express()
    .get('/.well-known/openid-configuration', (_req, res) => {
      asked++;
      const state = options.state?.() ?? 'up';
      if (state === 'hang') return;
      if (state === 'down') return void res.status(503).end();
      discoveries++;
      res.json({ issuer: options.claimedIssuer?.(url) ?? url, jwks_uri: `${url}/keys`, token_endpoint: `${url}/token` });
    })
    .get('/keys', (_req, res) => res.json({ keys: [publicJwk] }));
  url = (await serve(app)).url;
  return { url, discoveries: () => discoveries, asked: () => asked };
}

const token = (
  claims: Json,
  { issuer, audience = 'https://agent.example', expires = '5m' }: { issuer: string; audience?: string; expires?: string },
) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'issuer-key' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(String(claims.sub ?? 'alice'))
    .setIssuedAt()
    .setExpirationTime(expires)
    .sign(privateKey);

const done: TaskHandler = async function* () {
  yield completed();
};

/** The agent over HTTP and gRPC, whose every turn completes at once. */
const agent = (options: Partial<A2ARouterOptions>) => agents.agent(done, options);

const send = (url: string, bearer?: string) =>
  rpc(
    `${url}/v1`,
    'SendMessage',
    { message: message10('hi') },
    { headers: { ...V1, ...(bearer && { Authorization: `Bearer ${bearer}` }) } },
  );

describe('an OpenID Provider, configured from its issuer URL alone', () => {
  test('the cards declare it (openIdConnect, its discovery URL, the scopes required); a token it issued is taken over JSON-RPC, HTTP+JSON and gRPC', async () => {
    const issuer = await issuerStandIn();
    const { url, client } = await agent({
      auth: { strategies: [oidcBearer({ issuer: issuer.url, audience: 'https://agent.example', requiredScopes: ['agent:use'] })] },
    });
    const card10 = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: V1 })).json()) as Json;
    expect(card10.securitySchemes).toEqual({
      openid: { openIdConnectSecurityScheme: { openIdConnectUrl: `${issuer.url}/.well-known/openid-configuration` } },
    });
    expect(card10.securityRequirements).toEqual([{ schemes: { openid: { list: ['agent:use'] } } }]);
    expect(publishedSchemaValidator10('Agent Card')(card10)).toBe(true);
    const card03 = (await (await fetch(`${url}/v0.3/.well-known/agent-card.json`)).json()) as Json;
    expect(card03.securitySchemes).toEqual({
      openid: { type: 'openIdConnect', openIdConnectUrl: `${issuer.url}/.well-known/openid-configuration` },
    });
    expect(publishedSchemaValidator03('AgentCard')(card03)).toBe(true);

    const bearer = await token({ scope: 'agent:use' }, { issuer: issuer.url });
    expect((await send(url, bearer)).error).toBeUndefined();
    const rest = await fetch(`${url}/v1/message:send`, {
      method: 'POST',
      headers: { ...V1, 'content-type': 'application/json', Authorization: `Bearer ${bearer}` },
      body: JSON.stringify({ message: message10('hi') }),
    });
    expect(rest.status).toBe(200);
    const overGrpc = await new Promise<grpc.ServiceError | null>((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.set('a2a-version', '1.0');
      metadata.set('authorization', `Bearer ${bearer}`);
      client.sendMessage!({ message: message10('hi') }, metadata, (error: grpc.ServiceError | null) => resolve(error));
    });
    expect(overGrpc).toBeNull();
    // The discovery document was read once, for every call since.
    expect(issuer.discoveries()).toBe(1);
  });

  test('refused (401, saying why): no token, another audience, another issuer, an expired token', async () => {
    const issuer = await issuerStandIn();
    const other = await issuerStandIn();
    const { url } = await agent({ auth: { strategies: [oidcBearer({ issuer: issuer.url, audience: 'https://agent.example' })] } });
    for (const bearer of [
      undefined,
      await token({}, { issuer: issuer.url, audience: 'https://another-agent.example' }),
      await token({}, { issuer: other.url }),
      await token({}, { issuer: issuer.url, expires: '-1m' }),
    ]) {
      const answer = await send(url, bearer);
      expect(answer.httpStatus).toBe(401);
    }
  });

  test('a discovery document naming another issuer, or an issuer that cannot be reached: 401 saying so', async () => {
    const lying = await issuerStandIn({ claimedIssuer: () => 'https://someone-else.example' });
    const { url } = await agent({ auth: { strategies: [oidcBearer({ issuer: lying.url, audience: 'https://agent.example' })] } });
    const refused = await send(url, await token({}, { issuer: lying.url }));
    expect(refused.httpStatus).toBe(401);
    expect(JSON.stringify(refused.error)).toContain('its issuer is \\"https://someone-else.example\\"');

    // An issuer that cannot be reached: refused.
    const gone = await serve(express());
    await gone.close();
    const down = await agent({
      auth: { strategies: [oidcBearer({ issuer: gone.url, audience: 'https://agent.example', discoveryTimeoutMs: 1_000 })] },
    });
    const whileDown = await send(down.url, await token({}, { issuer: gone.url }));
    expect(whileDown.httpStatus).toBe(401);
    expect(JSON.stringify(whileDown.error)).toContain('could not be read');
  });

  test('tokens that cannot be the provider’s (not a JWT, an algorithm not accepted, another issuer) are refused without asking it', async () => {
    const issuer = await issuerStandIn({ state: () => 'down' });
    const { url } = await agent({ auth: { strategies: [oidcBearer({ issuer: issuer.url, audience: 'https://agent.example' })] } });
    const hmac = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(issuer.url)
      .setExpirationTime('5m')
      .sign(new Uint8Array(32));
    const tokens = ['garbage', 'a.b.c', 'e30.e30.', hmac, await token({}, { issuer: 'https://someone-else.example' })];
    for (let round = 0; round < 20; round++) {
      for (const bearer of tokens) {
        const answer = await send(url, bearer);
        expect(answer.httpStatus).toBe(401);
        expect(JSON.stringify(answer.error)).toContain('invalid token');
      }
    }
    expect(issuer.asked()).toBe(0);
    // A token that could be its own asks it.
    expect(JSON.stringify((await send(url, await token({}, { issuer: issuer.url }))).error)).toContain('provider unavailable');
    expect(issuer.asked()).toBe(1);
  });

  test('a provider answering 503: asked once for the calls of discoveryCooldownMs (each refused at once, "provider unavailable"), again after it; back up, it is used', async () => {
    let state: 'up' | 'down' = 'down';
    const issuer = await issuerStandIn({ state: () => state });
    const cooldown = 1_500;
    const { url } = await agent({
      auth: { strategies: [oidcBearer({ issuer: issuer.url, audience: 'https://agent.example', discoveryCooldownMs: cooldown })] },
    });
    const bearer = await token({}, { issuer: issuer.url });
    const unavailable = `provider unavailable: the issuer's discovery document (${issuer.url}/.well-known/openid-configuration) could not be read: HTTP 503`;
    // Calls at once share the one discovery in flight; the calls after it are refused without asking.
    const first = await Promise.all(Array.from({ length: 10 }, () => send(url, bearer)));
    for (let i = 0; i < 20; i++) first.push(await send(url, bearer));
    for (const answer of first) {
      expect(answer.httpStatus).toBe(401);
      expect(JSON.stringify(answer.error)).toContain(unavailable);
    }
    expect(issuer.asked()).toBe(1);
    // Past the cooldown it is asked again: still down, held down for another cooldown.
    await new Promise((resolve) => setTimeout(resolve, cooldown + 200));
    expect((await send(url, bearer)).httpStatus).toBe(401);
    expect(issuer.asked()).toBe(2);
    state = 'up';
    expect((await send(url, bearer)).httpStatus).toBe(401);
    expect(issuer.asked()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, cooldown + 200));
    expect((await send(url, bearer)).error).toBeUndefined();
    expect((await send(url, bearer)).error).toBeUndefined();
    expect([issuer.asked(), issuer.discoveries()]).toEqual([3, 1]);
  });

  test('a provider that hangs: the calls waiting on the discovery in flight share it; once it timed out, the next call is refused without waiting or asking', async () => {
    const issuer = await issuerStandIn({ state: () => 'hang' });
    const discoveryTimeoutMs = 2_000;
    const { url } = await agent({
      auth: { strategies: [oidcBearer({ issuer: issuer.url, audience: 'https://agent.example', discoveryTimeoutMs })] },
    });
    const bearer = await token({}, { issuer: issuer.url });
    const waited = await Promise.all(Array.from({ length: 5 }, () => send(url, bearer)));
    for (const answer of waited) {
      expect(answer.httpStatus).toBe(401);
      expect(JSON.stringify(answer.error)).toContain('provider unavailable');
    }
    expect(issuer.asked()).toBe(1);
    const started = Date.now();
    const next = await send(url, bearer);
    expect(Date.now() - started).toBeLessThan(discoveryTimeoutMs);
    expect(next.httpStatus).toBe(401);
    expect(JSON.stringify(next.error)).toContain('provider unavailable');
    expect(issuer.asked()).toBe(1);
  });
});

describe('an OAuth 2.0 server, declared with its flows', () => {
  const flows = {
    authorizationCode: {
      authorizationUrl: 'https://auth.example/authorize',
      tokenUrl: 'https://auth.example/token',
      scopes: { 'agent:read': 'read tasks', 'agent:write': 'send messages' },
      pkceRequired: true,
    },
    clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { 'agent:read': 'read tasks', 'agent:write': 'send messages' } },
    deviceCode: {
      deviceAuthorizationUrl: 'https://auth.example/device',
      tokenUrl: 'https://auth.example/token',
      scopes: { 'agent:read': 'read tasks' },
    },
  };

  test('the 1.0 card has a scheme per flow with its scopes, the 0.3 card one with the flows it knows; both pass their published schemas', async () => {
    const issuer = await issuerStandIn();
    const { url } = await agent({
      auth: {
        strategies: [
          oauth2Bearer({
            flows,
            metadataUrl: 'https://auth.example/.well-known/oauth-authorization-server',
            jwksUrl: `${issuer.url}/keys`,
            issuer: issuer.url,
          }),
        ],
      },
    });
    const card10 = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: V1 })).json()) as Json;
    expect(Object.keys(card10.securitySchemes as Json)).toEqual([
      'oauth2-authorization-code',
      'oauth2-client-credentials',
      'oauth2-device-code',
    ]);
    expect((card10.securitySchemes as Json)['oauth2-device-code']).toEqual({
      oauth2SecurityScheme: {
        flows: { deviceCode: flows.deviceCode },
        oauth2MetadataUrl: 'https://auth.example/.well-known/oauth-authorization-server',
      },
    });
    expect(publishedSchemaValidator10('Agent Card')(card10)).toBe(true);
    const card03 = (await (await fetch(`${url}/v0.3/.well-known/agent-card.json`)).json()) as Json;
    const { pkceRequired: _pkce, ...authorizationCode } = flows.authorizationCode;
    expect((card03.securitySchemes as Json).oauth2).toMatchObject({
      type: 'oauth2',
      flows: { authorizationCode, clientCredentials: flows.clientCredentials },
    });
    expect(publishedSchemaValidator03('AgentCard')(card03)).toBe(true);
  });

  test('scopes per operation (requireScopes): a read-only token reads and may not send (403); a token with both does both; `scp` lists count too', async () => {
    const issuer = await issuerStandIn();
    const { url } = await agent({
      auth: {
        strategies: [oauth2Bearer({ flows, jwksUrl: `${issuer.url}/keys`, issuer: issuer.url, audience: 'https://agent.example' })],
        authorize: requireScopes(
          { SendMessage: ['agent:write'], GetTask: ['agent:read'], ListTasks: ['agent:read'] },
          { otherwise: ['agent:admin'] },
        ),
      },
    });
    const both = await token({ scope: 'agent:read agent:write' }, { issuer: issuer.url });
    const sent = await send(url, both);
    expect(sent.error).toBeUndefined();
    const readOnly = await token({ scp: ['agent:read'] }, { issuer: issuer.url });
    const refused = await send(url, readOnly);
    expect(refused.httpStatus).toBe(403);
    const listed = await rpc(`${url}/v1`, 'ListTasks', {}, { headers: { ...V1, Authorization: `Bearer ${readOnly}` } });
    expect(listed.error).toBeUndefined();
    // An operation not named needs `otherwise`.
    const cancel = await rpc(`${url}/v1`, 'CancelTask', { id: 'x' }, { headers: { ...V1, Authorization: `Bearer ${both}` } });
    expect(cancel.httpStatus).toBe(403);
  });

  test('a flow list that names none, or scopes that are not an object, is a TypeError', () => {
    expect(() => oauth2Bearer({ flows: {}, secret: 'x'.repeat(32) })).toThrow(/at least one flow/);
    expect(() =>
      oauth2Bearer({ flows: { clientCredentials: { tokenUrl: 'https://t', scopes: 'all' as never } }, secret: 'x'.repeat(32) }),
    ).toThrow(/scopes must be an object/);
    expect(() => oidcBearer({ issuer: 'not a url', audience: 'a' })).toThrow(/issuer must be a URL/);
  });
});
