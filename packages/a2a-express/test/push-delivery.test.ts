// Two ways a push notification travels: Node's http and https, each connection held to the
// addresses the URL guard checked (the default wherever the runtime has them: Node, Bun, Deno,
// the fetch handler's included), and the runtime's fetch, where it has not (Cloudflare Workers).
// Here the fetch delivery runs on Node, asked for by name, against webhooks on loopback; and the
// guard as it is on a runtime with no resolver: a host name is refused unless allow-listed, or
// unless the operator says the runtime's network reaches nothing private.
import express from 'express';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { rpc, serverPool } from 'a2a-testing';
import { createPushNotificationVerifier } from 'a2a-push-receiver';
import { a2aFetchHandler } from '../src/fetch.js';
import { completed, working, type PushNotificationOptions, type TaskHandler } from '../src/index.js';
import { PushNotifier } from '../src/push/push-notifier.js';
import { agentCoreOf } from '../src/served-agent.js';
import { ipFamily, isPublicAddress, UrlGuard } from '../src/push/url-guard.js';
import { appWith, eventually, memoryLogger, silent, testCard, userText } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

const steps: TaskHandler = async function* () {
  yield working('step 1');
  yield completed('done');
};

async function agent(push: PushNotificationOptions, extra = {}) {
  const { app } = appWith(steps, { pushNotifications: { allowlist: ['127.0.0.1'], retryBackoffMs: 5, ...push }, ...extra });
  return (await serve(app)).url;
}

/** A webhook on loopback: records what it receives, answers what it is told. */
async function webhook(answer: (req: express.Request, res: express.Response) => void = (_req, res) => void res.status(200).end()) {
  const received: { headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
  const app = express();
  app.get('/hook', (req, res) => void res.send(String(req.query.validationToken ?? '')));
  app.post('/hook', express.raw({ type: () => true }), (req, res) => {
    received.push({ headers: req.headers, body: req.body as Buffer });
    answer(req, res);
  });
  const server = await serve(app);
  return { url: `${server.url}/hook`, received };
}

const send = (url: string, id: string, pushNotification: object) =>
  rpc(url, 'tasks/send', { id, message: userText('go'), pushNotification });

describe('which delivery', () => {
  test('Node’s where the runtime has it (here), the fetch handler’s too; fetch when asked; anything else a TypeError', () => {
    expect(new PushNotifier({}, silent, {}).delivery.name).toBe('node');
    expect(new PushNotifier({ delivery: 'node' }, silent, {}).delivery.name).toBe('node');
    expect(new PushNotifier({ delivery: 'fetch' }, silent, {}).delivery.name).toBe('fetch');
    expect(() => new PushNotifier({ delivery: 'http' as never }, silent, {})).toThrow(/delivery must be 'node' or 'fetch'/);
    const agent = a2aFetchHandler(steps, { card: testCard, logger: silent, pushNotifications: {} });
    expect(agentCoreOf(agent).push?.delivery.name).toBe('node');
  });
});

describe('the Node delivery on Bun and Deno (the fetch handler’s default there)', () => {
  const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
  const bin = (name: string) => join(packageDir, '../../node_modules/.bin', name);
  // A host name no resolver knows, held to a checked loopback address: only a pinned connection reaches it.
  const script = `
import http from 'node:http';
import { nodeDelivery } from ${JSON.stringify(pathToFileURL(join(packageDir, 'dist/push/node-delivery.js')).href)};
const server = http.createServer((req, res) => res.end('reached ' + req.headers.host.split(':')[0]));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const delivery = nodeDelivery();
const answer = await delivery.send({
  method: 'GET', url: 'http://hooks.rebinding.test:' + server.address().port + '/hook', headers: {},
  addresses: [{ address: '127.0.0.1', family: 4 }], signal: AbortSignal.timeout(5000),
});
console.log(JSON.stringify({ delivery: delivery.name, status: answer.status, body: answer.body }));
server.close();
`;

  test.each([
    ['bun', (file: string): [string, string[]] => [bin('bun'), [file]]],
    ['deno', (file: string): [string, string[]] => [bin('deno'), ['run', '--allow-net=127.0.0.1', '--allow-read', '--allow-env', file]]],
  ])(
    '%s: connects only to the checked address',
    async (_runtime, command) => {
      const dir = await mkdtemp(join(tmpdir(), 'a2a-pinned-'));
      try {
        const file = join(dir, 'pinned.mjs');
        await writeFile(file, script);
        const [binary, args] = command(file);
        const { stdout } = await promisify(execFile)(binary, args, { timeout: 30_000 });
        expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
          delivery: 'node',
          status: 200,
          body: 'reached hooks.rebinding.test',
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    40_000,
  );
});

describe('the fetch delivery', () => {
  test('delivers signed notifications in order, which verify against the JWKS', async () => {
    const url = await agent({ delivery: 'fetch' });
    const hook = await webhook();
    await send(url, 'fetched', { url: hook.url, token: 'client-token' });
    await eventually(async () => (hook.received.length >= 3 ? true : undefined));
    await sleep(50);
    const verifier = createPushNotificationVerifier({ jwksUrl: `${url}/.well-known/jwks.json`, expectedToken: 'client-token' });
    const states = [];
    for (const { headers, body } of hook.received) {
      expect(headers['user-agent']).toBe('a2a-express');
      states.push((await verifier.verify({ headers, body })).payload.status.state);
    }
    expect(states).toEqual(['working', 'working', 'completed']);
  });

  test('checks ownership with the validation token', async () => {
    const url = await agent({ delivery: 'fetch', verifyOwnership: true });
    const owner = await webhook();
    const stranger = await serve(express().get('/hook', (_req, res) => void res.send('hello')));
    expect((await send(url, 'owned', { url: owner.url })).error).toBeUndefined();
    const refused = await send(url, 'not-owned', { url: `${stranger.url}/hook` });
    expect(refused.error).toMatchObject({ code: -32602, data: [{ message: expect.stringMatching(/ownership not confirmed/) }] });
  });

  test('follows no redirect: a webhook that redirects elsewhere has refused the notification', async () => {
    const { logger, lines } = memoryLogger();
    const elsewhere = await webhook();
    const redirecting = await webhook((_req, res) => void res.redirect(307, elsewhere.url));
    const url = await agent({ delivery: 'fetch' }, { logger });
    await send(url, 'redirected', { url: redirecting.url });
    await eventually(async () => (lines().filter((l) => l.outcome === 'rejected').length === 3 ? true : undefined));
    expect(lines().filter((l) => l.outcome === 'rejected')).toEqual(
      expect.arrayContaining([expect.objectContaining({ status: 307, attempt: 1 })]),
    );
    expect(elsewhere.received).toHaveLength(0);
  });

  test('retries a webhook that cannot be reached, saying why, and gives up after the retries', async () => {
    const { logger, lines } = memoryLogger();
    const gone = await serve(express());
    const goneUrl = `${gone.url}/hook`;
    await gone.close();
    const url = await agent({ delivery: 'fetch', retries: 1 }, { logger });
    await send(url, 'unreachable', { url: goneUrl });
    await eventually(async () => (lines().filter((l) => l.outcome === 'failed').length === 3 ? true : undefined));
    expect(lines().find((l) => l.outcome === 'retrying')?.reason).toMatch(/fetch failed: .*ECONNREFUSED/);
  });

  test('a webhook that does not answer in time is a failure saying so', async () => {
    const { logger, lines } = memoryLogger();
    const silentHook = await webhook(() => undefined);
    const url = await agent({ delivery: 'fetch', retries: 0, timeoutMs: 200 }, { logger });
    await send(url, 'slow', { url: silentHook.url });
    await eventually(async () => (lines().some((l) => l.outcome === 'failed') ? true : undefined));
    expect(lines().find((l) => l.outcome === 'failed')?.reason).toBe('no answer within 200 ms');
  });
});

describe('the URL guard without a resolver (a runtime with no node:dns)', () => {
  const refusal = (reason: RegExp) => ({ code: -32602, data: [{ message: expect.stringMatching(reason) }] });

  test('refuses a host name off the allow-list, and says what to do', async () => {
    await expect(new UrlGuard().check('https://hooks.example.com/a')).rejects.toMatchObject(
      refusal(/host names cannot be resolved here to check where hooks\.example\.com leads: allow-list it, or see unresolvedHostNames/),
    );
  });

  test('accepts an allow-listed host name unresolved, and judges literal addresses as ever', async () => {
    const guard = new UrlGuard({ allowlist: ['hooks.example.com', '*.corp.example', '10.0.0.0/8'] });
    await expect(guard.check('http://hooks.example.com/a')).resolves.toEqual([]);
    await expect(guard.check('https://in.corp.example/a')).resolves.toEqual([]);
    await expect(guard.check('http://10.1.2.3/a')).resolves.toEqual([{ address: '10.1.2.3', family: 4 }]);
    await expect(guard.check('https://127.0.0.1/a')).rejects.toMatchObject(refusal(/non-public address \(127\.0\.0\.1\)/));
    await expect(guard.check('https://[::ffff:7f00:1]/a')).rejects.toMatchObject(refusal(/non-public/));
  });

  test("with unresolvedHostNames 'allow': any https host name, but not plain http; literal addresses still judged", async () => {
    const guard = new UrlGuard({ unresolvedHostNames: 'allow' });
    await expect(guard.check('https://hooks.example.com/a')).resolves.toEqual([]);
    await expect(guard.check('http://hooks.example.com/a')).rejects.toMatchObject(refusal(/https is required/));
    await expect(guard.check('https://169.254.169.254/a')).rejects.toMatchObject(refusal(/non-public/));
    expect(() => new UrlGuard({ unresolvedHostNames: 'yes' as never })).toThrow(/unresolvedHostNames must be 'refuse' or 'allow'/);
  });

  test('a resolver given is used, with the fetch delivery too', async () => {
    const url = await agent({ delivery: 'fetch', allowlist: [], resolve: async () => [{ address: '10.0.0.7', family: 4 }] });
    await expect(send(url, 'inside', { url: 'https://hooks.example.com/a' })).resolves.toMatchObject({
      error: refusal(/hooks\.example\.com resolves to a non-public address \(10\.0\.0\.7\)/),
    });
  });
});

describe('IP addresses read without node:net', () => {
  const texts = [
    '127.0.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3',
    '1.2.3.4.5',
    '1.2.3.04',
    ' 1.2.3.4',
    '::',
    '::1',
    '1::',
    'fe80::1%eth0',
    'fe80::1%',
    '2001:db8::8a2e:370:7334',
    '2001:0db8:0000:0000:0000:ff00:0042:8329',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::',
    '1::2::3',
    ':::1',
    '::ffff:127.0.0.1',
    '::ffff:127.0.0.01',
    '1:2:3:4:5:6:1.2.3.4',
    '1:2:3:4:5:6:7:1.2.3.4',
    '::1.2.3.4',
    '1.2.3.4::',
    '12345::',
    'g::1',
    'localhost',
    'example.com',
    '',
  ];
  test.each(texts)('%p is what node:net’s isIP says', (text) => {
    expect(ipFamily(text)).toBe(isIP(text));
  });

  test('the blocked ranges cut where node:net’s BlockList cut them', () => {
    expect(['100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '198.17.255.255', '198.20.0.0'].map(isPublicAddress)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['100.64.0.0', '100.127.255.255', '172.16.0.0', '172.31.255.255', '198.18.0.0', '198.19.255.255'].map(isPublicAddress)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(['fbff:ffff::1', 'fc00::', 'fdff:ffff::1', 'fe00::', 'fe7f::1', 'fe80::', 'febf::1', 'fec0::1'].map(isPublicAddress)).toEqual([
      true,
      false,
      false,
      true,
      true,
      false,
      false,
      true,
    ]);
  });
});
