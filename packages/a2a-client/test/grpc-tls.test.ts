// gRPC over TLS and mutual TLS, against the kit's own gRPC server (a2a-express/grpc's `tls`), with
// a CA made for this run by openssl: a server certificate for 127.0.0.1 and localhost, a client
// certificate, and a CA of no one's for a client certificate the server must refuse. TLS asked
// for (the `tls` option, a card's grpcs:// URL) is TLS or a clear failure, never plaintext.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import { a2aRouter, artifact, completed } from 'a2a-express';
import { pino } from 'pino';
import { serverPool } from 'a2a-testing';
import type { StreamResponse } from 'a2a-types/v1.0';
import { A2AClient10, NetworkError } from '../src/index.js';
import { grpcTransport } from '../src/grpc.js';

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
