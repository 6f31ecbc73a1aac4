// `a2a check`, `a2a card --verify`, verifyCardSignature and the inspector's Check tab pointed at
// agents that mean harm: agents on loopback written here, each hostile in one way (a card naming
// other origins for the credentials, a redirect, a card or a key set without end, nesting past the
// proto's depth, a card of 100,000 interfaces, answers dripped a byte at a time), and what the
// checker does with each.
import { execFile } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serverPool } from 'a2a-testing';
import { verifyCardSignature } from '../src/card-signature.js';
import { checkAgent } from '../src/check/run.js';
import { serveInspector } from '../src/inspector/server.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../dist/cli.js');
const run = promisify(execFile);
const { serve, closeAll } = serverPool();
afterAll(closeAll);

const credentials = { Authorization: 'Bearer a2a-check-secret', 'X-API-Key': 'a2a-check-key' };

/** A 1.0 card listing `interfaces`. */
const card10 = (interfaces: unknown[], extra: Record<string, unknown> = {}) => ({
  name: 'Hostile',
  description: 'an agent that means harm',
  version: '1.0.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'x', name: 'X', description: 'x', tags: ['x'] }],
  supportedInterfaces: interfaces,
  ...extra,
});

/** A server that answers every request with `answer`, after noting the request's headers. */
async function recorder(answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(404).end()) {
  const seen: { url: string; headers: IncomingMessage['headers'] }[] = [];
  const server = await serve((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    req.resume();
    answer(req, res);
  });
  return { url: server.url, seen };
}

/** An h2c server as a gRPC interface: notes each call's metadata and answers UNIMPLEMENTED. */
async function grpcRecorder(): Promise<{ address: string; seen: Record<string, unknown>[]; close: () => Promise<void> }> {
  const seen: Record<string, unknown>[] = [];
  const server: Http2Server = createHttp2Server();
  server.on('stream', (stream, headers) => {
    seen.push(headers);
    stream.resume();
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '12', 'grpc-message': 'not here' }));
    stream.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { address: `127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A body that never ends, made as it is sent (64 KiB at a time, as fast as the reader takes it),
 * up to `total` bytes: whether the reader closed the connection before it was all sent.
 */
function endless(prefix: string, total = 256 * 1024 * 1024) {
  const state = { sent: 0, closedEarly: false, done: new Promise<void>(() => undefined) };
  let settle: () => void = () => undefined;
  state.done = new Promise<void>((resolve) => (settle = resolve));
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const answer = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(prefix);
    let closed = false;
    res.on('close', () => {
      closed = true;
      state.closedEarly = state.sent < total;
      settle();
    });
    const pump = () => {
      while (!closed && state.sent < total) {
        state.sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!closed) res.end();
    };
    pump();
  };
  return { state, answer };
}

describe('credentials go to the agent’s origin only', () => {
  test('an interface the card names at another origin gets no Authorization or X-API-Key, over HTTP or as gRPC metadata; --send-headers-to trusts one', async () => {
    const elsewhere = await recorder((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const grpc = await grpcRecorder();
    try {
      const agent = await recorder((req, res) => {
        if (req.url === '/.well-known/agent-card.json')
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify(
              card10([
                { url: `${elsewhere.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
                { url: grpc.address, protocolBinding: 'GRPC', protocolVersion: '1.0' },
              ]),
            ),
          );
        res.writeHead(404).end();
      });
      const report = await checkAgent(agent.url, { headers: credentials, rate: 200, only: ['1.0-jsonrpc-get', '1.0-grpc-get'] });
      // The agent's own origin was given them; the others were asked, without them.
      expect(agent.seen.some((r) => r.headers.authorization === credentials.Authorization)).toBe(true);
      expect(elsewhere.seen.length).toBeGreaterThan(0);
      expect(grpc.seen.length).toBeGreaterThan(0);
      for (const { headers } of [...elsewhere.seen, ...grpc.seen.map((headers) => ({ headers }))]) {
        expect(headers).not.toHaveProperty('authorization');
        expect(headers).not.toHaveProperty('x-api-key');
      }
      expect(report.credentialsWithheld).toEqual(expect.arrayContaining([elsewhere.url, grpc.address]));

      // Trusted by name, the other origin is given them.
      elsewhere.seen.length = 0;
      await checkAgent(agent.url, { headers: credentials, rate: 200, only: ['1.0-jsonrpc-get'], sendHeadersTo: [elsewhere.url] });
      expect(elsewhere.seen.length).toBeGreaterThan(0);
      for (const { headers } of elsewhere.seen) expect(headers).toMatchObject({ authorization: credentials.Authorization });
    } finally {
      await grpc.close();
    }
  });

  test('a 307 to another origin is not followed: the other origin is never asked, and the check fails saying why', async () => {
    const elsewhere = await recorder();
    const agent = await recorder((req, res) => {
      if (req.url === '/.well-known/agent-card.json')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(card10([{ url: `http://${req.headers.host}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }])));
      if (req.url === '/rpc') return void res.writeHead(307, { location: `${elsewhere.url}/collect` }).end();
      res.writeHead(404).end();
    });
    const report = await checkAgent(agent.url, { headers: credentials, rate: 200, only: ['1.0-jsonrpc-get-unknown'] });
    expect(agent.seen.some((r) => r.url === '/rpc')).toBe(true);
    expect(elsewhere.seen).toEqual([]);
    expect(report.results[0]).toMatchObject({
      outcome: 'failed',
      reason: expect.stringMatching(new RegExp(`^HTTP 307 .*a redirect to ${elsewhere.url}/collect: not followed`)),
    });
  });
});

describe('every body is read to a bound', () => {
  test('a card without end: "too large", and the connection closed long before the agent sent it all', async () => {
    const { state, answer } = endless('{"name":"');
    const agent = await serve((req, res) =>
      req.url === '/.well-known/agent-card.json' && req.headers['a2a-version'] === '1.0' ? answer(req, res) : res.writeHead(404).end(),
    );
    const report = await checkAgent(agent.url, { rate: 200 });
    await state.done;
    expect(report.unreadable).toEqual([
      { url: `${agent.url}/.well-known/agent-card.json`, reason: expect.stringMatching(/too large: over 8 MiB/) },
    ]);
    expect(state.closedEarly).toBe(true);
    expect(state.sent).toBeLessThan(64 * 1024 * 1024);
  });

  test('a key set without end: verifyCardSignature says "too large" (never throws), and the connection is closed early', async () => {
    const { state, answer } = endless('{"keys":[{"kty":"EC","x":"');
    const keys = await serve(answer);
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k' })).toString('base64url');
    const signed = { ...card10([]), signatures: [{ protected: header, signature: 'AAAA' }] };
    const check = await verifyCardSignature(signed, { keys: `${keys.url}/jwks.json`, protocol: '1.0' });
    await state.done;
    expect(check).toMatchObject({ signed: true, valid: false, reason: expect.stringMatching(/too large: over 1 MiB/) });
    expect(state.closedEarly).toBe(true);
    expect(state.sent).toBeLessThan(64 * 1024 * 1024);
  });
  test('a key set URL that redirects: verifyCardSignature does not follow it, and says so', async () => {
    const elsewhere = await recorder((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}'));
    const keys = await serve((_req, res) => res.writeHead(307, { location: `${elsewhere.url}/jwks.json` }).end());
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k' })).toString('base64url');
    const signed = { ...card10([]), signatures: [{ protected: header, signature: 'AAAA' }] };
    const check = await verifyCardSignature(signed, { keys: `${keys.url}/jwks.json`, protocol: '1.0' });
    expect(check).toMatchObject({ signed: true, valid: false, reason: expect.stringMatching(/HTTP 307, a redirect to .*: not followed/) });
    expect(elsewhere.seen).toEqual([]);
  });
  test('a2a card --verify: a card without end and a key set without end are each "too large", the connections closed early', async () => {
    const endlessCard = endless('{"name":"');
    const cardAgent = await serve((req, res) =>
      req.url === '/.well-known/agent-card.json' ? endlessCard.answer(req, res) : res.writeHead(404).end(),
    );
    const card = await run(process.execPath, [cli, 'card', cardAgent.url, '--protocol', '1.0', '--verify'], { timeout: 30_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    await endlessCard.state.done;
    expect(card).toMatchObject({ code: 1, stderr: expect.stringMatching(/the agent card at .* is too large: over 8 MiB/) });
    expect(endlessCard.state.closedEarly).toBe(true);

    const endlessKeys = endless('{"keys":[{"kty":"EC","x":"');
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k' })).toString('base64url');
    const signed = JSON.stringify({
      ...card10([{ url: 'http://127.0.0.1:9/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]),
      signatures: [{ protected: header, signature: 'AAAA' }],
    });
    const agent = await serve((req, res) => {
      if (req.url === '/.well-known/agent-card.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(signed);
      if (req.url === '/.well-known/jwks.json') return endlessKeys.answer(req, res);
      res.writeHead(404).end();
    });
    const keys = await run(process.execPath, [cli, 'card', agent.url, '--protocol', '1.0', '--verify'], { timeout: 30_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    await endlessKeys.state.done;
    expect(keys).toMatchObject({ code: 1, stderr: expect.stringMatching(/signed, not valid: the key set at .* is too large: over 1 MiB/) });
    expect(endlessKeys.state.closedEarly).toBe(true);
  });
});

describe('hostile nesting is a failure of its check, never an abort', () => {
  /** Extension params nested `depth` deep. */
  const nested = (depth: number) => {
    let value: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < depth; i++) value = { deeper: value };
    return value;
  };
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k' })).toString('base64url');
  const deepCard = card10([{ url: 'http://127.0.0.1:9/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], {
    capabilities: { extensions: [{ uri: 'urn:deep', params: nested(101) }] },
    signatures: [{ protected: header, signature: 'AAAA' }],
  });

  test('verifyCardSignature of a card nested 101 deep returns its failure form', async () => {
    await expect(verifyCardSignature(deepCard, { keys: { keys: [] }, protocol: '1.0' })).resolves.toMatchObject({
      signed: true,
      valid: false,
      reason: expect.stringContaining('no canonical form'),
    });
  });

  test('a2a check of such a signed card reports it, and --json prints the whole report', async () => {
    const agent = await serve((req, res) => {
      if (req.url === '/.well-known/agent-card.json')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(deepCard));
      if (req.url === '/.well-known/jwks.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
      res.writeHead(404).end();
    });
    const failure = await run(process.execPath, [cli, 'check', agent.url, '--json', '--only', 'card-1.0', '--rate', '200'], {
      timeout: 30_000,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    const { stdout, stderr } = failure as { stdout: string; stderr: string };
    expect(stderr).not.toContain('unexpected error');
    const report = JSON.parse(stdout) as Awaited<ReturnType<typeof checkAgent>>;
    expect(report.results.find((r) => r.id === 'card-1.0-signature')).toMatchObject({
      outcome: 'failed',
      reason: expect.stringContaining('no canonical form'),
    });
  });
});

test('a card of 100,000 interfaces is checked, and the report says how many were read and that the rest were not checked', async () => {
  const interfaces = Array.from({ length: 100_000 }, (_, i) => ({
    url: `http://127.0.0.1:9/${i}`,
    protocolBinding: 'X',
    protocolVersion: '1.0',
  }));
  const body = JSON.stringify(card10(interfaces));
  const agent = await serve((req, res) =>
    req.url === '/.well-known/agent-card.json'
      ? res.writeHead(200, { 'content-type': 'application/json' }).end(body)
      : res.writeHead(404).end(),
  );
  const report = await checkAgent(agent.url, { rate: 200, only: ['card-1.0'] });
  expect(report.cards).toEqual([{ version: '1.0', url: `${agent.url}/.well-known/agent-card.json` }]);
  expect(report.limits).toEqual([
    `the card at ${agent.url}/.well-known/agent-card.json lists 100000 supportedInterfaces: the first 64 were read, the other 99936 not checked`,
  ]);
});

describe('an agent that drips its answers', () => {
  /** A card naming a JSON-RPC interface whose answers come a byte every 200 ms (200 and headers at once); requests to it counted. */
  async function drippingAgent() {
    const asked = { count: 0 };
    const agent = await serve((req, res) => {
      if (req.url === '/.well-known/agent-card.json')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify(
            card10([{ url: `http://${req.headers.host}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], {
              capabilities: { streaming: true, pushNotifications: true },
            }),
          ),
        );
      if (req.url !== '/rpc') return void res.writeHead(404).end();
      asked.count++;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      // At most a minute of drips: the test's server stops by itself.
      let drops = 0;
      const drip = setInterval(() => (drops++ < 300 ? res.write(' ') : res.end()), 200);
      res.on('close', () => clearInterval(drip));
    });
    return { url: agent.url, asked };
  }

  test('its first request times out, the report says "timeout", the interface is given up (asked once), all within the deadline', async () => {
    const { url, asked } = await drippingAgent();
    const begun = performance.now();
    const report = await checkAgent(url, { rate: 200, timeoutMs: 500, deadlineMs: 10_000, only: ['1.0-jsonrpc'] });
    expect(performance.now() - begun).toBeLessThan(10_000);
    expect(asked.count).toBe(1);
    const [first, ...rest] = report.results;
    expect(first).toMatchObject({ outcome: 'failed', reason: `timeout: no whole answer from ${url}/rpc within 500 ms` });
    expect(rest.length).toBeGreaterThan(5);
    for (const result of rest)
      expect(result).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/timed out in 1\.0-jsonrpc-[a-z-]+: given up/) });
  });

  test('past the deadline no check starts: those left are skipped saying so, and the check ends about then', async () => {
    // Answers that come whole, each after 300 ms: no timeout, but more than the deadline allows.
    const slow = await serve((req, res) => {
      if (req.url === '/.well-known/agent-card.json')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(card10([{ url: `http://${req.headers.host}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }])));
      req.resume();
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 300);
    });
    const begun = performance.now();
    const report = await checkAgent(slow.url, { rate: 200, timeoutMs: 2_000, deadlineMs: 1_000, only: ['1.0-jsonrpc'] });
    expect(performance.now() - begun).toBeLessThan(5_000);
    const skipped = report.results.filter((r) => r.outcome === 'skipped' && /deadline \(1 s\) passed/.test(r.reason ?? ''));
    expect(skipped.length).toBeGreaterThan(0);
    expect(report.limits).toEqual([`the check’s deadline (1 s) passed: ${skipped.length} checks were not run`]);
  });

  test('the inspector’s Check tab is held to the same: the dripping interface is asked once, and the report says timeout', async () => {
    const { url, asked } = await drippingAgent();
    const inspector = await serveInspector({ timeoutMs: 500 });
    try {
      const session = (await (
        await fetch(new URL('api/session', inspector.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      ).json()) as {
        session: string;
      };
      const answer = await fetch(new URL('api/check', inspector.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-inspector-session': session.session },
        body: JSON.stringify({ url }),
      });
      const report = (await answer.json()) as Awaited<ReturnType<typeof checkAgent>>;
      expect(asked.count).toBe(1);
      const [first, ...rest] = report.results.filter((r) => r.binding === 'JSONRPC');
      expect(first).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/^timeout: /) });
      for (const result of rest) expect(result).toMatchObject({ outcome: 'skipped', reason: expect.stringContaining('given up') });
    } finally {
      await inspector.close();
    }
  });
});

test('a2a check --json piped: the whole report arrives (past 64 KiB), and parses', async () => {
  // A card of 2,000 skills: each card check shows the card it read, so the report is far past 64 KiB.
  const skills = Array.from({ length: 2_000 }, (_, i) => ({ id: `s${i}`, name: `Skill ${i}`, description: 'a skill', tags: ['t'] }));
  const agent = await serve((req, res) =>
    req.url === '/.well-known/agent-card.json'
      ? res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card10([], { skills })))
      : res.writeHead(404).end(),
  );
  const outcome = await run(process.execPath, [cli, 'check', agent.url, '--json', '--only', 'card-1.0'], {
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout: string }) => error);
  const { stdout } = outcome as { stdout: string };
  expect(Buffer.byteLength(stdout)).toBeGreaterThan(64 * 1024);
  expect(JSON.parse(stdout)).toMatchObject({ agent: agent.url, cards: [{ version: '1.0' }] });
});
