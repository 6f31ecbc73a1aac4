// TLS and mutual TLS against the kit's own servers, with a CA made for this run by openssl: a
// server certificate for 127.0.0.1 and localhost, a client certificate, and a CA of no one's for a
// client certificate the server must refuse. gRPC (a2a-express/grpc's `tls`): TLS asked for (the
// `tls` option, a card's grpcs:// URL) is TLS or a clear failure, never plaintext. HTTPS (a node:https
// server in front of a2aRouter, whose card asks for mutual TLS): a2a-client/tls's fetch presents the
// client certificate over JSON-RPC and HTTP+JSON; a client with none is refused before it sends.
// The command line's --ca, --cert and --key, for calls (1.0 and 0.3 over gRPC) and for `a2a check`.
import { execFile, spawn } from 'node:child_process';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import { a2aRouter, artifact, completed } from 'a2a-express';
import { pino } from 'pino';
import { serverPool, within } from 'a2a-testing';
import type { StreamResponse } from 'a2a-types/v1.0';
import { A2AClient10, type Binding10, MutualTlsRequiredError, NetworkError } from '../src/index.js';
import { grpcTransport } from '../src/grpc.js';
import { tlsFetch } from '../src/tls.js';

const here = dirname(fileURLToPath(import.meta.url));
const { serve, closeAll } = serverPool();
const run = promisify(execFile);
let dir: string;
/** PEM text of the test CA and the certificates it signed. */
const pem: Record<'ca' | 'serverKey' | 'serverCert' | 'clientKey' | 'clientCert' | 'strangerKey' | 'strangerCert', string> = {} as never;
const closers: (() => Promise<void>)[] = [];

/** openssl in `dir`. */
const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-grpc-tls-'));
  const key = (name: string) =>
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-subj',
      `/CN=${name}`,
    );
  // Two CAs: the one the server trusts, and a stranger's.
  await Promise.all([key('ca'), key('stranger-ca')]);
  const signed = async (name: string, ca: string, extensions: string) => {
    await openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${name}`,
    );
    await writeFile(join(dir, `${name}.ext`), extensions);
    await openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '1',
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
    );
  };
  await signed('server', 'ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await signed('client', 'ca', 'extendedKeyUsage=clientAuth\n');
  await signed('stranger', 'stranger-ca', 'extendedKeyUsage=clientAuth\n');
  const read = (file: string) => readFile(join(dir, file), 'utf8');
  Object.assign(pem, {
    ca: await read('ca.crt'),
    serverKey: await read('server.key'),
    serverCert: await read('server.crt'),
    clientKey: await read('client.key'),
    clientCert: await read('client.crt'),
    strangerKey: await read('stranger.key'),
    strangerCert: await read('stranger.crt'),
  });
}, 60_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await closeAll();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** An agent whose card lists its gRPC interface (at `listedAs` when given), served as `tls` says. */
async function agent(tls?: { key: string; cert: string; ca?: string }, listedAs?: (address: string) => string) {
  const { serveGrpc } = await import('a2a-express/grpc');
  const router = a2aRouter(
    async function* (ctx) {
      yield artifact(`over ${ctx.call.binding}: `);
      yield artifact(ctx.message.parts.map((p) => ('text' in p ? p.text : '')).join(''), { append: true });
      yield completed();
    },
    { card: { name: 'Secure', version: '1.0.0' }, logger: pino({ level: 'silent' }) },
  );
  const http = await serve(express().use(router));
  const grpcServer = await serveGrpc(router, { port: 0, agentUrl: http!.url, ...(tls ? { tls } : {}) });
  closers.push(async () => {
    await grpcServer.close({ graceMs: 100 });
    await router.close();
  });
  if (!listedAs) return { url: http!.url, grpcAddress: grpcServer.address };
  // A card of our own that lists the same gRPC server at another URL (grpcs://, say).
  const card = (await (await fetch(`${http!.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as Record<
    string,
    unknown
  >;
  card.supportedInterfaces = [{ url: listedAs(grpcServer.address), protocolBinding: 'GRPC', protocolVersion: '1.0' }];
  const stub = await serve(express().get('/.well-known/agent-card.json', (_req, res) => res.json(card)));
  return { url: stub!.url, grpcAddress: grpcServer.address };
}

const ask = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });
const textOf = (answer: unknown) =>
  ((answer as { task: { artifacts: { parts: { text: string }[] }[] } }).task.artifacts[0]!.parts ?? []).map((p) => p.text).join('');

/** Sends and streams over gRPC with this transport; closes the client after. */
async function exchange(url: string, grpc: ReturnType<typeof grpcTransport>) {
  const client = new A2AClient10(url, { preferredBinding: 'GRPC', grpc, timeoutMs: 10_000 });
  try {
    const sent = textOf(await client.sendMessage(ask('sealed')));
    const events: StreamResponse[] = [];
    for await (const { event } of client.streamMessage(ask('streamed'))) events.push(event);
    return { sent, events: events.length };
  } finally {
    client.close();
  }
}

/** What a call over this transport fails with. */
async function failure(url: string, grpc: ReturnType<typeof grpcTransport>): Promise<Error> {
  const client = new A2AClient10(url, { preferredBinding: 'GRPC', grpc, timeoutMs: 10_000 });
  try {
    await client.sendMessage(ask('should not arrive'));
  } catch (error) {
    return error as Error;
  } finally {
    client.close();
  }
  throw new Error('the call succeeded');
}

test('TLS: a client given the CA calls and streams; the same client with the system roots alone refuses the server', async () => {
  const { url } = await agent({ key: pem.serverKey, cert: pem.serverCert });
  expect(await exchange(url, grpcTransport({ tls: { ca: pem.ca }, keepalive: { timeMs: 30_000, timeoutMs: 5_000 } }))).toEqual({
    sent: 'over grpc: sealed',
    events: expect.any(Number),
  });
  // The test CA is in no system store: TLS was asked, so the handshake fails; nothing falls back.
  const untrusted = await failure(url, grpcTransport({ tls: true }));
  expect(untrusted).toBeInstanceOf(NetworkError);
  expect(untrusted.message).toMatch(/\(TLS\)/);
});

test('mutual TLS: a client with a certificate the CA signed calls; one without a certificate, or with a stranger’s, is refused', async () => {
  const { url } = await agent({ key: pem.serverKey, cert: pem.serverCert, ca: pem.ca });
  expect((await exchange(url, grpcTransport({ tls: { ca: pem.ca, cert: pem.clientCert, key: pem.clientKey } }))).sent).toBe(
    'over grpc: sealed',
  );
  const noCertificate = await failure(url, grpcTransport({ tls: { ca: pem.ca } }));
  expect(noCertificate).toBeInstanceOf(NetworkError);
  const stranger = await failure(url, grpcTransport({ tls: { ca: pem.ca, cert: pem.strangerCert, key: pem.strangerKey } }));
  expect(stranger).toBeInstanceOf(NetworkError);
  expect(() => grpcTransport({ tls: { cert: pem.clientCert } })).toThrow(/a client certificate needs its key/);
});

test('a plaintext client gets no answer from a TLS server', async () => {
  const { url } = await agent({ key: pem.serverKey, cert: pem.serverCert });
  const plaintext = await failure(url, grpcTransport());
  expect(plaintext).toBeInstanceOf(NetworkError);
});

test('TLS asked for never falls back: a TLS client, or a card’s grpcs:// URL, against a plaintext server fails clearly', async () => {
  const { url } = await agent();
  const overTls = await failure(url, grpcTransport({ tls: { ca: pem.ca } }));
  expect(overTls).toBeInstanceOf(NetworkError);
  expect(overTls.message).toMatch(/^127\.0\.0\.1:\d+ \(TLS\): /);
  // The card says grpcs://: TLS with no option given, and so a failure against plaintext.
  const listedSecure = await agent(undefined, (address) => `grpcs://${address}`);
  const bySchema = await failure(listedSecure.url, grpcTransport());
  expect(bySchema).toBeInstanceOf(NetworkError);
  expect(bySchema.message).toMatch(/\(TLS\)/);
  // `tls: false` does not talk it out of that.
  expect((await failure(listedSecure.url, grpcTransport({ tls: false }))).message).toMatch(/\(TLS\)/);
  // The same card's URL as grpc:// is plaintext, and works.
  const listedPlain = await agent(undefined, (address) => `grpc://${address}`);
  expect((await exchange(listedPlain.url, grpcTransport())).sent).toBe('over grpc: sealed');
});

test('a card’s grpcs:// URL with the CA given: TLS, and the call goes through', async () => {
  const { url } = await agent({ key: pem.serverKey, cert: pem.serverCert }, (address) => `grpcs://${address}`);
  expect((await exchange(url, grpcTransport({ tls: { ca: pem.ca } }))).sent).toBe('over grpc: sealed');
});

/** The `a2a` command line, built, as a user runs it. */
function a2a(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, '../dist/cli.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('the a2a command line over mutual TLS: --ca, --cert, --key; without them it is refused', async () => {
  const { url } = await agent({ key: pem.serverKey, cert: pem.serverCert, ca: pem.ca });
  const files = ['--ca', join(dir, 'ca.crt'), '--cert', join(dir, 'client.crt'), '--key', join(dir, 'client.key')];
  const sent = await a2a(['send', '--protocol', '1.0', '--binding', 'grpc', ...files, url, 'from', 'the', 'shell']);
  // grpc-js names an IP address as the TLS server name, which Node warns of (DEP0123): a warning, no error.
  expect(sent.stderr).not.toMatch(/error/i);
  expect(sent.stdout).toContain('over grpc: from the shell');
  expect(sent.code).toBe(0);
  const streamed = await a2a(['send', '--protocol', '1.0', '--binding', 'grpc', '--stream', ...files, url, 'streamed']);
  expect(streamed.stdout).toContain('over grpc: streamed');
  const refused = await a2a(['send', '--protocol', '1.0', '--binding', 'grpc', '--ca', join(dir, 'ca.crt'), url, 'no certificate']);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/\(TLS\)/);
  // The same flags for A2A 0.3 over gRPC (its a2a.v1.A2AService on the same server), and the same refusal without them.
  const [sent03, refused03] = await Promise.all([
    a2a(['send', '--protocol', '0.3', '--binding', 'grpc', ...files, url, 'in', '0.3']),
    a2a(['send', '--protocol', '0.3', '--binding', 'grpc', '--ca', join(dir, 'ca.crt'), url, 'no certificate']),
  ]);
  expect([sent03.code, sent03.stdout]).toEqual([0, expect.stringContaining('over grpc: in 0.3')]);
  expect([refused03.code, refused03.stderr]).toEqual([1, expect.stringMatching(/\(TLS\)/)]);
  const alone = await a2a(['send', '--protocol', '1.0', '--binding', 'grpc', '--cert', join(dir, 'client.crt'), url, 'x']);
  expect(alone.stderr).toContain('--cert and --key go together');
  const missing = await a2a(['send', '--protocol', '1.0', '--binding', 'grpc', '--ca', join(dir, 'nowhere.pem'), url, 'x']);
  expect(missing.stderr).toMatch(/--ca: cannot read .*nowhere\.pem: ENOENT/);
}, 60_000);

test('the inspector’s raw log marks a call over TLS, and its grpcurl command leaves out -plaintext for it (and only for it)', async () => {
  const { recordingGrpc } = await import('../src/inspector/recorder.js');
  const { grpcurlOf } = await import('../page/src/curl.js');
  const commandsOf = async (url: string, tls?: { ca: string }) => {
    const entries: { type: string }[] = [];
    await exchange(url, grpcTransport({ ...(tls ? { tls } : {}), observe: recordingGrpc((entry) => entries.push(entry)) }));
    return entries.filter((entry) => entry.type === 'request').map((request) => grpcurlOf(request as never));
  };
  const secure = await commandsOf((await agent({ key: pem.serverKey, cert: pem.serverCert })).url, { ca: pem.ca });
  expect(secure).toHaveLength(2);
  for (const command of secure) expect(command).toMatch(/^grpcurl -H /);
  const plain = await commandsOf((await agent()).url);
  expect(plain).toHaveLength(2);
  for (const command of plain) expect(command).toMatch(/^grpcurl -plaintext -H /);
});

// ---- mutual TLS from the card, over HTTPS and gRPC ------------------------------------------

/** The card's mutualTLS scheme, as an agent that checks client certificates declares it. */
const MUTUAL_TLS_CARD = {
  securitySchemes: { clientCert: { mtlsSecurityScheme: { description: 'a certificate our CA signed' } } },
  securityRequirements: [{ schemes: { clientCert: { list: [] } } }],
};

/**
 * An agent whose card asks for mutual TLS, served over HTTPS twice from one app: `strict` (the
 * handshake refuses a client without a certificate the CA signed, card included) and `open`
 * (the card is public; every other request without one is answered 401). Its gRPC beside it,
 * over mutual TLS. `reached` lists the paths past the certificate check.
 */
let mutualTls: Promise<{ strict: string; open: string; reached: string[] }> | undefined;
function mutualTlsAgent() {
  mutualTls ??= (async () => {
    const { serveGrpc } = await import('a2a-express/grpc');
    const reached: string[] = [];
    const app = express();
    app.use((req, res, next) => {
      if (req.path.includes('/.well-known/')) return next();
      if (!(req.socket as TLSSocket).authorized) {
        res.status(401).json({ error: 'a client certificate is required' });
        return;
      }
      reached.push(req.path);
      next();
    });
    const listen = async (rejectUnauthorized: boolean) => {
      const server = createHttpsServer(
        { key: pem.serverKey, cert: pem.serverCert, ca: pem.ca, requestCert: true, rejectUnauthorized },
        app,
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      );
      return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const strict = await listen(true);
    const open = await listen(false);
    const router = a2aRouter(
      async function* (ctx) {
        yield artifact(`over ${ctx.call.binding}: `);
        yield artifact(ctx.message.parts.map((p) => ('text' in p ? p.text : '')).join(''), { append: true });
        yield completed();
      },
      { card: { name: 'Mutual', version: '1.0.0' }, logger: pino({ level: 'silent' }), protocol10: { card: MUTUAL_TLS_CARD } },
    );
    app.use(router);
    const grpcServer = await serveGrpc(router, { port: 0, agentUrl: open, tls: { key: pem.serverKey, cert: pem.serverCert, ca: pem.ca } });
    closers.push(async () => {
      await grpcServer.close({ graceMs: 100 });
      await router.close();
    });
    return { strict, open, reached };
  })();
  return mutualTls;
}

const withCertificate = () => ({ ca: pem.ca, cert: pem.clientCert, key: pem.clientKey });

test.each<Binding10>(['JSONRPC', 'HTTP+JSON'])(
  'mutual TLS over %s: a client whose fetch (a2a-client/tls) presents the certificate reads the card, calls and streams; the handshake refuses one without',
  async (binding) => {
    const { strict } = await mutualTlsAgent();
    const fetchOverTls = tlsFetch(withCertificate());
    expect(fetchOverTls.clientCertificate).toBe(true);
    const client = new A2AClient10(strict, { preferredBinding: binding, fetch: fetchOverTls, timeoutMs: 10_000 });
    try {
      expect((await client.getCard()).securitySchemes).toEqual(MUTUAL_TLS_CARD.securitySchemes);
      expect(textOf(await client.sendMessage(ask('sealed')))).toBe(`over ${binding === 'JSONRPC' ? 'jsonrpc' : 'rest'}: sealed`);
      const events: StreamResponse[] = [];
      for await (const { event } of client.streamMessage(ask('streamed'))) events.push(event);
      expect(events.length).toBeGreaterThan(0);
    } finally {
      await fetchOverTls.close();
    }
    // The CA alone: the server asks for a certificate, gets none, and ends the handshake.
    const noCertificate = tlsFetch({ ca: pem.ca });
    try {
      await expect(
        new A2AClient10(strict, { preferredBinding: binding, fetch: noCertificate, retry: false }).getCard(),
      ).rejects.toBeInstanceOf(NetworkError);
    } finally {
      await noCertificate.close();
    }
  },
);

test.each<Binding10>(['JSONRPC', 'HTTP+JSON', 'GRPC'])(
  'a card that asks for mutual TLS, a client with no certificate for %s: refused before it sends, saying what to give the client',
  async (binding) => {
    const { open, reached } = await mutualTlsAgent();
    const noCertificate = tlsFetch({ ca: pem.ca });
    expect(noCertificate.clientCertificate).toBe(false);
    const grpcCalls: string[] = [];
    const client = new A2AClient10(open, {
      preferredBinding: binding,
      fetch: noCertificate,
      grpc: grpcTransport({ tls: { ca: pem.ca }, observe: (call) => void grpcCalls.push(call.path) }),
      timeoutMs: 10_000,
    });
    const before = reached.length;
    try {
      const error = await client.sendMessage(ask('should not be sent')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MutualTlsRequiredError);
      expect((error as Error).message).toContain(
        `the agent card asks for mutual TLS ("clientCert") and this client has no client certificate for ${binding}`,
      );
      expect((error as Error).message).toContain(
        binding === 'GRPC' ? 'grpcTransport({ tls: { cert, key } })' : "tlsFetch({ cert, key }) from 'a2a-client/tls'",
      );
      expect(reached.length).toBe(before);
      expect(grpcCalls).toEqual([]);
    } finally {
      client.close();
      await noCertificate.close();
    }
  },
);

test('a card that asks for mutual TLS over gRPC: grpcTransport’s client certificate meets it, the card read over HTTPS without one', async () => {
  const { open } = await mutualTlsAgent();
  const fetchCa = tlsFetch({ ca: pem.ca });
  const client = new A2AClient10(open, {
    preferredBinding: 'GRPC',
    fetch: fetchCa,
    grpc: grpcTransport({ tls: withCertificate() }),
    timeoutMs: 10_000,
  });
  try {
    expect(textOf(await client.sendMessage(ask('sealed')))).toBe('over grpc: sealed');
  } finally {
    client.close();
    await fetchCa.close();
  }
  expect(() => tlsFetch({ key: pem.clientKey })).toThrow(/a client certificate needs its key, and a key its certificate/);
});

test('the a2a command line over HTTPS with mutual TLS: --ca, --cert, --key give the fetch its certificate', async () => {
  const { strict } = await mutualTlsAgent();
  const files = ['--ca', join(dir, 'ca.crt'), '--cert', join(dir, 'client.crt'), '--key', join(dir, 'client.key')];
  const sent = await a2a(['send', '--binding', 'rest', ...files, strict, 'over', 'https']);
  expect(sent.stdout).toContain('over rest: over https');
  expect(sent.code).toBe(0);
  const refused = await a2a(['send', '--protocol', '1.0', '--ca', join(dir, 'ca.crt'), strict, 'no certificate']);
  expect(refused.code).toBe(1);
}, 60_000);

test('a2a check dials a card’s grpcs:// interface over TLS with no option given: against a plaintext server its gRPC checks fail, never plaintext', async () => {
  const { checkAgent } = await import('../src/check/index.js');
  const grpcSend = async (url: string, options: Parameters<typeof checkAgent>[1] = {}) => {
    const report = await checkAgent(url, { only: ['1.0-grpc-send'], rate: 200, ...options });
    return report.results.find((result) => result.id === '1.0-grpc-send')!;
  };
  const plaintextListedSecure = await agent(undefined, (address) => `grpcs://${address}`);
  const refused = await grpcSend(plaintextListedSecure.url);
  expect(refused.outcome).toBe('failed');
  expect(refused.exchanges[0]?.request.url).toMatch(/^127\.0\.0\.1:\d+\/lf\.a2a\.v1\.A2AService\/SendMessage$/);
  // The same server listed as grpc:// is plaintext, and passes; a TLS server listed as grpcs:// passes with its CA.
  expect((await grpcSend((await agent(undefined, (address) => `grpc://${address}`)).url)).outcome).toBe('passed');
  const sealed = await agent({ key: pem.serverKey, cert: pem.serverCert }, (address) => `grpcs://${address}`);
  expect((await grpcSend(sealed.url, { grpcTls: { ca: pem.ca } })).outcome).toBe('passed');
});

test('a2a check --ca --cert --key: the cards read and the HTTPS and gRPC interfaces checked behind mutual TLS; without them no card is read', async () => {
  const { strict } = await mutualTlsAgent();
  const files = ['--ca', join(dir, 'ca.crt'), '--cert', join(dir, 'client.crt'), '--key', join(dir, 'client.key')];
  const only = ['--only', 'card-1.0-schema,1.0-jsonrpc-send,1.0-rest-send,1.0-grpc-send'];
  const checked = await a2a(['check', '--json', ...only, ...files, strict]);
  const report = JSON.parse(checked.stdout) as {
    cards: { version: string }[];
    results: { id: string; outcome: string; reason?: string }[];
  };
  expect(report.cards.map((card) => card.version)).toContain('1.0');
  // --only takes prefixes: 1.0-jsonrpc-send brings 1.0-jsonrpc-send-to-ended along.
  expect(Object.fromEntries(report.results.map((r) => [r.id, r.outcome]))).toMatchObject({
    'card-1.0-schema': 'passed',
    '1.0-jsonrpc-send': 'passed',
    '1.0-rest-send': 'passed',
    '1.0-grpc-send': 'passed',
  });
  expect(checked.code).toBe(0);
  const without = await a2a(['check', '--json', ...only, strict]);
  expect((JSON.parse(without.stdout) as { cards: unknown[] }).cards).toEqual([]);
  expect(without.code).toBe(1);
}, 60_000);

test('the inspector with a2a-client/tls’s fetch and gRPC’s tls: it reads the cards of an agent behind mutual TLS and calls it over HTTP+JSON and gRPC', async () => {
  const { strict } = await mutualTlsAgent();
  const { serveInspector } = await import('../src/inspector/server.js');
  const fetchOverTls = tlsFetch(withCertificate());
  const inspector = await serveInspector({ fetch: fetchOverTls, grpc: { tls: withCertificate() } });
  const page = async (path: string, body: Record<string, unknown>) => {
    const { session, ...rest } = body;
    const response = await fetch(new URL(path, inspector.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(typeof session === 'string' ? { 'a2a-inspector-session': session } : {}) },
      body: JSON.stringify(rest),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  try {
    const { session } = (await page('api/session', {})) as { session: string };
    const found = (await page('api/discover', { session, url: strict })) as { interfaces: { binding: string }[] };
    expect(found.interfaces.map((i) => i.binding)).toEqual(expect.arrayContaining(['JSONRPC', 'HTTP+JSON', 'GRPC']));
    for (const binding of ['HTTP+JSON', 'GRPC']) {
      const sent = await page('api/call', {
        session,
        agent: { url: strict, protocol: '1.0', binding },
        headers: {},
        op: 'send',
        args: { message: { parts: [{ type: 'text', text: 'inspected' }] } },
      });
      expect(sent).toMatchObject({ ok: true, task: { status: { state: 'completed' } } });
    }
  } finally {
    await inspector.close();
    await fetchOverTls.close();
  }
});

test('push notifications from an agent whose keys are served behind a CA of its own: the verifier reads them with the fetch it is given (tlsFetch), and cannot without', async () => {
  const { createPushNotificationVerifier } = await import('../src/push-receiver.js');
  const received: { headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
  let delivered: () => void;
  const deliveredAll = new Promise<void>((resolve) => (delivered = resolve));
  const hook = await serve(
    express().post('/hook', express.raw({ type: () => true }), (req, res) => {
      received.push({ headers: req.headers, body: req.body as Buffer });
      if (JSON.parse((req.body as Buffer).toString()).statusUpdate?.status?.state === 'TASK_STATE_COMPLETED') delivered();
      res.status(200).end();
    }),
  );
  const router = a2aRouter(
    async function* () {
      yield completed('pushed');
    },
    { card: { name: 'Pushing', version: '1.0.0' }, logger: pino({ level: 'silent' }), pushNotifications: { allowlist: ['127.0.0.1'] } },
  );
  const server = createHttpsServer({ key: pem.serverKey, cert: pem.serverCert }, express().use(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fetchOverTls = tlsFetch({ ca: pem.ca });
  closers.push(async () => {
    await router.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fetchOverTls.close();
  });
  const client = new A2AClient10(url, { fetch: fetchOverTls, timeoutMs: 10_000 });
  await client.sendMessage({ ...ask('push it'), configuration: { taskPushNotificationConfig: { url: `${hook!.url}/hook`, token: 't' } } });
  await within(deliveredAll, 5_000, 'the notification of the completed task');
  const jwksUrl = `${url}/.well-known/jwks.json`;
  const notification = received.at(-1)!;
  const verified = await createPushNotificationVerifier({ jwksUrl, expectedToken: 't', fetch: fetchOverTls }).verify(notification);
  expect(verified.claims.request_body_sha256).toEqual(expect.any(String));
  // The global fetch does not trust the test CA: the keys cannot be read, and nothing verifies.
  await expect(createPushNotificationVerifier({ jwksUrl, expectedToken: 't' }).verify(notification)).rejects.toThrow(
    'token refused: fetch failed',
  );
});
