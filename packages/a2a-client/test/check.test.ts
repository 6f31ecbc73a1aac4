// `a2a check`: against the echo agent as `pnpm start` runs it every check passes (or is skipped for
// what its card does not declare), and each of ten agents broken in one way is caught by the check
// made for that way, and by no other. Real servers on loopback; the broken ones are the kit's own
// router with one thing in front of it done wrong.
import { execFile, fork } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import { a2aRouter, artifact, completed } from 'a2a-express';
import { serverPool, spawnAgent } from 'a2a-testing';
import { pino } from 'pino';
import { CHECKS } from '../src/check/checks.js';
import { checkAgent, type CheckReport } from '../src/check/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../dist/cli.js');
const run = promisify(execFile);
const { serve, closeAll } = serverPool();
afterAll(closeAll);

const silent = pino({ level: 'silent' });
const { privateKey: signingKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const echo = async function* (ctx: { message: { parts: { text?: string }[] } }) {
  yield artifact(ctx.message.parts.map((p) => p.text ?? '').join(''));
  yield completed();
};
const card = {
  name: 'Fixture',
  description: 'a fixture of a2a check',
  version: '1.0.0',
  skills: [{ id: 'echo', name: 'Echo', description: 'says it back', tags: ['echo'] }],
};

/** The kit's agent, with `broken` mounted in front of it: the one thing it does wrong. */
async function agentWith(broken?: express.RequestHandler, options: Record<string, unknown> = {}): Promise<string> {
  const app = express();
  if (broken) app.use(broken);
  // Listening first: a signing router's cards name its URL (card.url).
  const { url } = await serve(app);
  // Webhooks on loopback allowed: the push check gives the agent one of its own.
  // Its cards signed, so that the signature checks run on every fixture.
  app.use(
    a2aRouter(
      echo as never,
      {
        card: { ...card, url: `${url}/` } as never,
        logger: silent,
        pushNotifications: { allowlist: ['127.0.0.1'] },
        cardSigning: { privateKey: signingKey, kid: 'fixture-key' },
        ...options,
      } as never,
    ),
  );
  return url;
}

/** A JSON-RPC call's parsed body, for a fixture that answers some calls itself. */
const jsonBody = express.json({ type: () => true });
const rpcOf = (req: express.Request) => (req.body ?? {}) as { id?: unknown; method?: string; params?: { id?: string } };

const outcomes = (report: CheckReport) => Object.fromEntries(report.results.map((r) => [r.id, r.outcome]));
const failedIds = (report: CheckReport) => report.results.filter((r) => r.outcome === 'failed').map((r) => r.id);

test('against the echo agent as it ships: every check passes or is skipped for what its card does not declare, in seconds, exit 0', async () => {
  const agent = await spawnAgent(process.execPath, [join(here, '../../../apps/echo-agent/dist/server.js')], {
    env: { PORT: '0', HOST: '127.0.0.1' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'a2a-check-'));
  try {
    const junit = join(dir, 'report.xml');
    const { stdout, stderr } = await run(process.execPath, [cli, 'check', agent.url, '--junit', junit], { timeout: 30_000 });
    expect(stderr).toContain('sends its own messages only ("hello")');
    expect(stdout).toMatch(/^A2A 1\.0, JSONRPC$/m);
    expect(stdout).toMatch(/^A2A 1\.0, HTTP\+JSON$/m);
    expect(stdout).toMatch(/^A2A 0\.3, JSONRPC$/m);
    expect(stdout).toMatch(/^A2A 0\.1\.0, JSONRPC$/m);
    expect(stdout).toMatch(/^\d+ passed, 0 failed, \d+ skipped; \d+ tasks started: \d+ had ended, \d+ canceled$/m);
    expect(stdout).not.toContain('✗');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="a2a check [^"]+" tests="\d+" failures="0" skipped="\d+">/);
    expect(xml).toContain('<testcase classname="A2A 1.0, JSONRPC" name="1.0-jsonrpc-get-unknown: ');
    // As JSON: the same report, every check with its section and level.
    const json = await run(process.execPath, [cli, 'check', agent.url, '--json', '--only', '1.0-jsonrpc'], { timeout: 30_000 });
    const report = JSON.parse(json.stdout) as CheckReport;
    expect(report.counts.failed).toBe(0);
    // Its webhook on loopback is refused, as the echo agent refuses private addresses unless allowed (§13.2).
    expect(report.results.find((r) => r.id === '1.0-jsonrpc-push')).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringContaining('the agent refused the webhook http://127.0.0.1:'),
    });
    expect(report.results.length).toBeGreaterThan(10);
    for (const result of report.results) {
      expect(result.id).toMatch(/^1\.0-jsonrpc-/);
      expect(result.section).toMatch(/^1\.0 §\d/);
      expect(['MUST', 'SHOULD', 'MAY']).toContain(result.level);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await agent.stop();
  }
}, 60_000);

test('the echo agent served over gRPC too, and slow enough to subscribe to: its gRPC checks pass, and so does subscribing to a running task', async () => {
  const agent = await spawnAgent(process.execPath, [join(here, '../../../apps/echo-agent/dist/server.js')], {
    env: { PORT: '0', HOST: '127.0.0.1', A2A_GRPC_PORT: '0', ECHO_DELAY_MS: '300' },
  });
  try {
    // Six words: three chunks, 300 ms apart.
    const report = await checkAgent(agent.url, { rate: 200, slowMessage: 'one two three four five six', only: ['1.0-'] });
    const grpc = report.results.filter((r) => r.binding === 'GRPC');
    expect(grpc.map((r) => r.id)).toEqual(CHECKS.filter((c) => c.binding === 'GRPC').map((c) => c.id));
    expect(grpc.every((r) => r.outcome === 'passed')).toBe(true);
    expect(outcomes(report)['1.0-jsonrpc-subscribe']).toBe('passed');
    expect(report.counts.failed).toBe(0);
    // Its tasks were canceled over the binding that started them: gRPC's over gRPC.
    expect(report.tasks.filter((t) => t.binding === 'GRPC').length).toBeGreaterThan(0);
    expect(report.tasks.every((t) => t.cleanup === 'ended' || t.cleanup === 'canceled')).toBe(true);
  } finally {
    await agent.stop();
  }
}, 60_000);

test('the currency agent, which asks what to convert: every check passes; its tasks wait for input, so the subscription is checked and the cleanup cancels them', async () => {
  // Its rates come from a stand-in on loopback.
  const rates = express().get('/:date', (req, res) => {
    res.json({ amount: 1, base: req.query.from, date: '2025-04-02', rates: { [String(req.query.to)]: 0.5 } });
  });
  const agent = await spawnAgent(process.execPath, [join(here, '../../../apps/currency-agent/dist/server.js')], {
    env: { PORT: '0', HOST: '127.0.0.1', FRANKFURTER_URL: (await serve(rates)).url },
  });
  try {
    const report = await checkAgent(agent.url, { rate: 200 });
    expect(report.cards.map((c) => c.version)).toEqual(['1.0', '0.3', '0.1.0']);
    expect(report.counts.failed).toBe(0);
    // "hello" leaves its task waiting for input (not terminal): subscribed to, then canceled.
    expect(outcomes(report)['1.0-jsonrpc-subscribe']).toBe('passed');
    expect(report.tasks.filter((t) => t.cleanup === 'canceled').length).toBeGreaterThan(0);
    expect(report.tasks.every((t) => t.cleanup === 'ended' || t.cleanup === 'canceled')).toBe(true);
    // What is skipped is what its card declares otherwise (it requires no extension, it is not signed), or its refusal of a webhook on loopback (§13.2).
    for (const skipped of report.results.filter((r) => r.outcome === 'skipped'))
      expect(skipped.reason).toMatch(
        /^the card declares (streaming|push notifications)$|^the card requires no extension$|^the card is not signed$|^the agent refused the webhook http:\/\/127\.0\.0\.1:/,
      );
  } finally {
    await agent.stop();
  }
}, 60_000);

/** A bench server of the official SDK (bench/servers), forked: it reports its port when it listens. */
async function sdkServer(script: string, env: Record<string, string> = {}): Promise<{ url: string; stop: () => void }> {
  const child = fork(join(here, '../../../bench/servers', script), [], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { port: number }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

describe('against the official SDK servers, the report is what they do', () => {
  test('SDK 1.3 (1.0 over JSON-RPC, HTTP+JSON and gRPC, 0.3 listed in its 1.0 card): every method and error as the spec has it; the bench card has no skill', async () => {
    // BENCH_GRPC=1: its gRPC service too, listed in its card.
    const sdk = await sdkServer('sdk10.mjs', { BENCH_GRPC: '1' });
    try {
      const report = await checkAgent(sdk.url, { rate: 200 });
      expect(report.cards.map((c) => c.version)).toEqual(['1.0']);
      // The bench's card lists no skill; the proto requires at least one (AIP-203). A request whose
      // jsonrpc is "1.0" is answered -32602, where JSON-RPC 2.0 has -32600 Invalid Request. And two
      // SHOULDs: its card's weak ETag asked back with If-None-Match is answered 200 with the whole
      // card, not 304; and a part of a media type its card does not list is taken, not
      // ContentTypeNotSupportedError.
      expect(failedIds(report)).toEqual([
        'card-1.0-required',
        'card-1.0-conditional',
        '1.0-jsonrpc-content-type-not-supported',
        '1.0-jsonrpc-invalid-request',
      ]);
      expect(report.results.find((r) => r.id === '1.0-jsonrpc-invalid-request')!.reason).toMatch(
        /^expected Invalid Request \(-32600\); got -32602: /,
      );
      expect(report.results.find((r) => r.id === 'card-1.0-required')!.reason).toBe('missing or empty: skills');
      expect(report.results.find((r) => r.id === 'card-1.0-conditional')).toMatchObject({
        level: 'SHOULD',
        reason: expect.stringMatching(/^expected 304 Not Modified for If-None-Match W\/"[^"]+"; got 200$/),
      });
      expect(report.results.find((r) => r.id === '1.0-jsonrpc-content-type-not-supported')).toMatchObject({
        level: 'SHOULD',
        reason: 'expected ContentTypeNotSupportedError (-32005); the call succeeded',
      });
      // Its caching headers are there, and every other 1.0 check over JSON-RPC passes or is skipped for what it does not declare.
      expect(outcomes(report)['card-1.0-caching']).toBe('passed');
      for (const binding of ['HTTP+JSON', 'GRPC']) {
        const over = report.results.filter((r) => r.binding === binding);
        expect(over.length).toBeGreaterThan(5);
        expect(over.filter((r) => r.outcome !== 'passed').map((r) => [r.id, r.reason])).toEqual(
          over.filter((r) => r.outcome === 'skipped').map((r) => [r.id, 'the card declares streaming']),
        );
      }
      // Its 0.3, listed in the 1.0 card with no 0.3 card of its own, is checked too: as the spec has it.
      const over03 = report.results.filter((r) => r.version === '0.3');
      expect(over03.map((r) => [r.id, r.outcome])).toEqual([
        ['0.3-jsonrpc-send', 'passed'],
        ['0.3-jsonrpc-get-unknown', 'passed'],
        ['0.3-jsonrpc-invalid-params', 'passed'],
        ['0.3-jsonrpc-method-not-found', 'passed'],
        ['0.3-jsonrpc-invalid-request', 'passed'],
        ['0.3-jsonrpc-get', 'passed'],
        ['0.3-jsonrpc-cancel-unknown', 'passed'],
        ['0.3-jsonrpc-stream', 'passed'],
        ['0.3-jsonrpc-push-not-declared', 'passed'],
        ['0.3-jsonrpc-resubscribe-unknown', 'passed'],
      ]);
    } finally {
      sdk.stop();
    }
  }, 30_000);

  test('SDK 0.3.14: message/send without a message is answered -32603 with a TypeError’s text, not -32602', async () => {
    const sdk = await sdkServer('sdk.mjs');
    try {
      const report = await checkAgent(sdk.url, { rate: 200 });
      expect(report.cards.map((c) => c.version)).toEqual(['0.3']);
      expect(failedIds(report)).toEqual(['0.3-jsonrpc-invalid-params']);
      expect(report.results.find((r) => r.id === '0.3-jsonrpc-invalid-params')!.reason).toMatch(
        /got -32603: .*Cannot read properties of undefined/,
      );
    } finally {
      sdk.stop();
    }
  }, 30_000);
});

test('an interface the card lists that does not answer: one failure that says so, the interface’s other checks skipped', async () => {
  const app = express();
  // A 1.0 card naming a JSON-RPC endpoint on a port where nothing listens.
  app.get('/.well-known/agent-card.json', (_req, res) => {
    res.json({
      ...card,
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      supportedInterfaces: [{ url: 'http://127.0.0.1:9/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    });
  });
  const report = await checkAgent((await serve(app)).url, { rate: 200 });
  const jsonRpc = report.results.filter((r) => r.binding === 'JSONRPC');
  expect(jsonRpc.filter((r) => r.outcome === 'failed')).toHaveLength(1);
  expect(jsonRpc[0]!.reason).toMatch(/^no answer: /);
  for (const skipped of jsonRpc.slice(1))
    expect(skipped).toMatchObject({ outcome: 'skipped', reason: expect.stringContaining('http://127.0.0.1:9/a2a does not answer') });
});

test('with webhooks on loopback allowed, the push checks pass: the webhook is called with the token; a config created, read, listed and deleted', async () => {
  const report = await checkAgent(await agentWith(), { rate: 200, only: ['1.0-jsonrpc-push'] });
  expect(outcomes(report)).toEqual({
    '1.0-jsonrpc-push': 'passed',
    '1.0-jsonrpc-push-configs': 'passed',
    '1.0-jsonrpc-push-not-declared': 'skipped',
  });
});

test('an agent that requires an extension: every check asks for it (and its cleanup), and the refusal of a call that does not is checked', async () => {
  const required = { extensions: [{ uri: 'urn:example:required', required: true }] };
  const report = await checkAgent(await agentWith(undefined, required), { rate: 200 });
  expect(report.counts.failed).toBe(0);
  expect(outcomes(report)['1.0-jsonrpc-extension-required']).toBe('passed');
  expect(report.tasks.every((t) => t.cleanup === 'ended' || t.cleanup === 'canceled')).toBe(true);
  // Declared but not held to: a call without it is served, and the check says so.
  const lax = await agentWith((req, _res, next) => {
    if (req.headers['a2a-extensions'] === '') req.headers['a2a-extensions'] = 'urn:example:required';
    next();
  }, required);
  const caught = await checkAgent(lax, { rate: 200, only: ['1.0-jsonrpc-extension'] });
  expect(caught.results.find((r) => r.id === '1.0-jsonrpc-extension-required')).toMatchObject({
    outcome: 'failed',
    reason: 'expected ExtensionSupportRequiredError (-32008); the call succeeded',
  });
});

test('a MAY that fails is reported and leaves the exit code alone: a task started over 1.0 that 0.3 and 0.1.0 do not know', async () => {
  const url = await agentWith((req, res, next) =>
    jsonBody(req, res, () => {
      const call = rpcOf(req);
      if (call.method !== 'tasks/get') return next();
      res.json({ jsonrpc: '2.0', id: call.id, error: { code: -32001, message: 'Task not found' } });
    }),
  );
  // The 1.0 checks: 0.3's own (tasks/get of a task started over 0.3) would fail on this fixture too.
  const report = await checkAgent(url, { rate: 200, only: ['1.0-jsonrpc'] });
  expect(failedIds(report)).toEqual(['1.0-jsonrpc-across-versions']);
  expect(report.results.find((r) => r.id === '1.0-jsonrpc-across-versions')).toMatchObject({
    level: 'MAY',
    reason: expect.stringMatching(/^over 0\.3 JSONRPC, tasks\/get /),
  });
  expect(report.mustFailed).toBe(false);
});

describe('an agent broken in one way is caught by the check made for it, and by no other', () => {
  const fixtures: [string, string, express.RequestHandler][] = [
    [
      'a wrong error code: an unknown task answered -32603, not TaskNotFoundError',
      '1.0-jsonrpc-get-unknown',
      (req, res, next) =>
        jsonBody(req, res, () => {
          const call = rpcOf(req);
          if (call.method === 'GetTask' && call.params?.id?.startsWith('a2a-check-unknown'))
            return void res.json({ jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'Internal error' } });
          next();
        }),
    ],
    [
      // The published 1.0 schema requires no field (proto3): the proto's REQUIRED catches it.
      'a card missing a required field (name)',
      'card-1.0-required',
      // The router's own card, without its name.
      // Its caching headers kept, and a conditional request left to the router, so that only the name is wrong.
      async (req, res, next) => {
        const path = '/.well-known/agent-card.json';
        if (req.path !== path || req.header('a2a-version') !== '1.0' || req.query.whole || req.header('if-none-match')) return next();
        const whole = await fetch(`http://${req.headers.host}${req.path}?whole=1`, { headers: { 'a2a-version': '1.0' } });
        // Unsigned too: a card that is not signed has no signature to break.
        const { name: _dropped, signatures: _unsigned, ...rest } = (await whole.json()) as Record<string, unknown>;
        for (const header of ['cache-control', 'etag']) res.setHeader(header, whole.headers.get(header) ?? '');
        res.json(rest);
      },
    ],
    [
      'an SSE event out of order: an artifact after the task completed',
      '1.0-jsonrpc-stream',
      (req, res, next) =>
        jsonBody(req, res, () => {
          const call = rpcOf(req);
          if (call.method !== 'SendStreamingMessage') return next();
          const ids = { taskId: 'out-of-order', contextId: 'ctx' };
          const results = [
            { task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_WORKING' } } },
            { statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED' } } },
            { artifactUpdate: { ...ids, artifact: { artifactId: 'late', parts: [{ text: 'too late' }] } } },
          ];
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const result of results) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result })}\n\n`);
          res.end();
        }),
    ],
    [
      'an unknown method answered -32600 Invalid Request, not -32601',
      '1.0-jsonrpc-method-not-found',
      (req, res, next) =>
        jsonBody(req, res, () => {
          const call = rpcOf(req);
          if (call.method === 'NoSuchMethod')
            return void res.json({ jsonrpc: '2.0', id: call.id, error: { code: -32600, message: 'Invalid Request' } });
          next();
        }),
    ],
    [
      'a version it does not serve accepted: A2A-Version 99.0 taken for 1.0',
      '1.0-jsonrpc-version-not-supported',
      (req, _res, next) => {
        // At the JSON-RPC endpoint (/v1) alone: HTTP+JSON's paths are below it.
        if (req.path === '/v1' && req.headers['a2a-version'] === '99.0') req.headers['a2a-version'] = '1.0';
        next();
      },
    ],
    [
      'a push notification without the token its config gave',
      '1.0-jsonrpc-push',
      (req, res, next) =>
        jsonBody(req, res, () => {
          const config = (rpcOf(req).params as { configuration?: { taskPushNotificationConfig?: { token?: string } } } | undefined)
            ?.configuration?.taskPushNotificationConfig;
          if (config) delete config.token;
          next();
        }),
    ],
    [
      'a push config deleted, and read all the same: the delete answered but not done',
      '1.0-jsonrpc-push-configs',
      (req, res, next) =>
        jsonBody(req, res, () => {
          const call = rpcOf(req);
          if (call.method === 'DeleteTaskPushNotificationConfig') return void res.json({ jsonrpc: '2.0', id: call.id, result: {} });
          next();
        }),
    ],
    [
      'a call without A2A-Version taken for 1.0, where 1.0 says an empty version is 0.3',
      '1.0-jsonrpc-empty-version',
      (req, _res, next) => {
        // At the JSON-RPC endpoint (/v1) alone: HTTP+JSON's paths are below it.
        if (req.path === '/v1' && req.headers['a2a-version'] === undefined) req.headers['a2a-version'] = '1.0';
        next();
      },
    ],
    [
      'a signed card changed after it was signed (its name)',
      'card-1.0-signature',
      async (req, res, next) => {
        if (
          req.path !== '/.well-known/agent-card.json' ||
          req.header('a2a-version') !== '1.0' ||
          req.query.whole ||
          req.header('if-none-match')
        )
          return next();
        const whole = await fetch(`http://${req.headers.host}${req.path}?whole=1`, { headers: { 'a2a-version': '1.0' } });
        const signed = (await whole.json()) as Record<string, unknown>;
        for (const header of ['cache-control', 'etag']) res.setHeader(header, whole.headers.get(header) ?? '');
        res.json({ ...signed, name: `${signed.name} (changed)` });
      },
    ],
    [
      'HTTP+JSON: an unknown task answered 500, not 404',
      '1.0-rest-get-unknown',
      (req, res, next) => {
        if (req.method === 'GET' && /\/tasks\/a2a-check-unknown/.test(req.path))
          return void res.status(500).json({ error: { message: 'boom' } });
        next();
      },
    ],
  ];

  test.each(fixtures)('%s', async (_, checkId, broken) => {
    const report = await checkAgent(await agentWith(broken), { rate: 200 });
    expect(failedIds(report)).toEqual([checkId]);
    expect(report.mustFailed).toBe(true);
    const failure = report.results.find((r) => r.id === checkId)!;
    // The report shows what was sent and what came back.
    expect(failure.reason).toEqual(expect.any(String));
    expect(failure.exchanges.length).toBeGreaterThan(0);
    // The same check passes on the agent without the fault.
    expect(outcomes(await checkAgent(await agentWith(), { rate: 200, only: [checkId] }))[checkId]).toBe('passed');
  });

  test('the CLI exits 1 when a MUST fails, and the text report shows the failing exchange', async () => {
    const url = await agentWith(fixtures[0]![2]);
    const failure = await run(process.execPath, [cli, 'check', url, '--only', '1.0-jsonrpc-get-unknown'], { timeout: 30_000 }).catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1 });
    const { stdout } = failure as { stdout: string };
    expect(stdout).toContain('✗ GetTask of a task that does not exist is TaskNotFoundError');
    expect(stdout).toContain('expected TaskNotFoundError (-32001); got -32603');
    expect(stdout).toMatch(/> POST http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(stdout).toContain('"code":-32603');
    expect(stdout).toContain('(a MUST failed)');
  });
});

test('usage: no URL, or a --rate that is not a rate, is exit 2 with the reason; an address with no agent is exit 1', async () => {
  for (const args of [['check'], ['check', 'http://127.0.0.1:9', '--rate', 'fast']]) {
    const failure = await run(process.execPath, [cli, ...args], { timeout: 10_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringMatching(/usage:/) });
  }
  const nobody = await run(process.execPath, [cli, 'check', 'http://127.0.0.1:9'], { timeout: 30_000 }).catch(
    (error: { code: number; stdout: string }) => error,
  );
  expect(nobody).toMatchObject({ code: 1, stdout: expect.stringContaining('no card found') });
});

test('docs/check.md lists every check with its spec section and level, and names none that does not exist', () => {
  const page = readFileSync(join(here, '../../../docs/check.md'), 'utf8');
  const rows = [...page.matchAll(/^\| `([^`]+)` \| .+ \| (.+) \| (MUST|SHOULD|MAY) \|$/gm)].map(([, id, section, level]) => ({
    id,
    section,
    level,
  }));
  expect(rows).toEqual(CHECKS.map(({ id, section, level }) => ({ id, section, level })));
  expect(new Set(CHECKS.map((c) => c.id)).size).toBe(CHECKS.length);
});
