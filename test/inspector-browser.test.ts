// The A2A inspector in a real browser: headless Chromium drives the page that `a2a inspect`
// serves, against the echo and currency agents started as `pnpm start` starts them (rates from a
// loopback stand-in), an agent with a broken card, and an app that mounts the page with the router
// option. Every address is on this machine. Screenshots go to test-output/screenshots.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { A2AClient10 } from 'a2a-client';
import { a2aRouter, artifact, completed } from 'a2a-express';
import { printedAddress, serverPool, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { launchChromium, screenshotDir } from 'a2a-testing/browser';
import { serveSdkAgent } from 'a2a-testing/sdk-agent';
import { echoRouter } from '../apps/echo-agent/src/agent.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const shots = screenshotDir(root);
const { serve, closeAll } = serverPool();

let browser: Browser;
let inspector: { url: string; child: ChildProcess };
let echo: SpawnedAgent;
let slowEcho: SpawnedAgent;
let lockedEcho: SpawnedAgent;
let currency: SpawnedAgent;
let grpcEcho: SpawnedAgent;
let brokenUrl: string;
const agents: SpawnedAgent[] = [];

/** Starts `a2a inspect` as a user runs it, and reads the address it prints. */
async function startInspector(agentUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(root, 'packages/a2a-client/dist/cli.js'), 'inspect', agentUrl], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { url: await printedAddress(child), child };
}

async function startAgent(app: 'echo-agent' | 'currency-agent', env: Record<string, string>): Promise<SpawnedAgent> {
  const agent = await spawnAgent(process.execPath, [join(root, 'apps', app, 'dist/server.js')], {
    env: { PORT: '0', HOST: '127.0.0.1', A2A_PUSH_ALLOWLIST: '127.0.0.1', ...env },
  });
  agents.push(agent);
  return agent;
}

beforeAll(async () => {
  const rates = express().get('/:date', (req, res) => {
    res.json({ amount: 1, base: req.query.from, date: '2025-04-02', rates: { [String(req.query.to)]: 0.5 } });
  });
  const ratesUrl = (await serve(rates)).url;
  // A card that breaks the 0.3 schema in several places.
  const broken = express().get('/.well-known/agent-card.json', (_req, res) => {
    res.json({
      protocolVersion: '0.3.0',
      name: 42,
      description: 'A card with mistakes',
      url: 'http://127.0.0.1:1/',
      version: '1',
      capabilities: { streaming: 'yes' },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
  });
  brokenUrl = (await serve(broken)).url;
  [browser, echo, slowEcho, lockedEcho, currency, grpcEcho] = await Promise.all([
    launchChromium(),
    startAgent('echo-agent', {}),
    startAgent('echo-agent', { ECHO_DELAY_MS: '1500' }),
    startAgent('echo-agent', { A2A_API_KEYS: 'open-sesame=alice' }),
    startAgent('currency-agent', { FRANKFURTER_URL: ratesUrl }),
    // Served over gRPC too, on a port of its own, and slow enough to register a webhook mid-task.
    startAgent('echo-agent', { A2A_GRPC_PORT: '0', ECHO_DELAY_MS: '1500' }),
  ]);
  inspector = await startInspector(echo.url);
}, 60_000);

afterAll(async () => {
  inspector?.child.kill('SIGTERM');
  await browser?.close();
  await Promise.all(agents.map((agent) => agent.stop()));
  await closeAll();
});

/** A new page on the inspector, opened on `agentUrl`, once it has read the cards. */
async function open(agentUrl?: string, at = inspector.url): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // Nothing but this machine: a request anywhere else fails the test.
  page.on('request', (request) => {
    const { hostname } = new URL(request.url());
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(hostname) && !request.url().startsWith('data:'))
      errors.push(`request to ${request.url()}`);
  });
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(agentUrl ? `${at}?agent=${encodeURIComponent(agentUrl)}` : at);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

function errorsOf(page: Page): string[] {
  return (page as Page & { errors: string[] }).errors;
}

async function chooseInterface(page: Page, label: string): Promise<void> {
  await page.selectOption('#interface', { label });
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill('#message-text', text);
  await page.click('#send');
}

const timelineState = (page: Page) => page.textContent('#timeline h3 .state');

async function waitForState(page: Page, state: string): Promise<void> {
  // Attached, not visible: another tab may be showing.
  await page.locator('#timeline h3 .state', { hasText: new RegExp(`^${state}$`) }).waitFor({ state: 'attached' });
}

/** An expression evaluated in the page (a string: these tests are compiled without the DOM's types). */
function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

test('a2a inspect serves the page on loopback, with nothing from elsewhere, and reads every card of the agent', async () => {
  const page = await open();
  expect(await page.inputValue('#agent-url')).toBe(`${echo.url}/`);
  await expect(page.textContent('#connection-status')).resolves.toBe('Connected: 3 cards (A2A 1.0, 0.3, 0.1.0), no problems.');
  const options = await page.$$eval('#interface option', (all) => all.map((o) => o.textContent));
  expect(options).toEqual([
    'A2A 1.0 · JSON-RPC',
    'A2A 1.0 · HTTP+JSON (REST)',
    'A2A 0.3 · JSON-RPC',
    'A2A 0.3 · HTTP+JSON (REST)',
    'A2A 0.1.0 · JSON-RPC',
  ]);
  // Each card valid; the 1.0 and 0.3 ones, which can be signed, say they are not.
  expect(await page.$$eval('.card .badge', (all) => all.map((b) => b.textContent))).toEqual([
    'valid',
    'unsigned',
    'valid',
    'unsigned',
    'valid',
  ]);
  // The page allows itself nothing from elsewhere.
  const policy = (await page.goto(inspector.url))!.headers()['content-security-policy'];
  expect(policy).toContain("default-src 'none'");
  expect(policy).toContain("script-src 'self'");
  await page.waitForSelector('body[data-ready="true"]');
  await page.screenshot({ path: join(shots, 'inspector-cards.png') });
  expect(errorsOf(page)).toEqual([]);
  await page.close();
});

// The four at once, each on a page of its own: each waits some 3 s on the slow echo's chunks,
// 1.5 s apart, which one after the other was 12 s of this file doing nothing.
test.concurrent.each([
  ['A2A 1.0 · JSON-RPC', '/v1'],
  ['A2A 1.0 · HTTP+JSON (REST)', '/v1/message:stream'],
  ['A2A 0.3 · JSON-RPC', '/v0.3'],
  ['A2A 0.1.0 · JSON-RPC', ''],
])(
  'over %s: a streamed answer arrives chunk by chunk, its artifact assembled, every exchange in the raw log',
  async (label, path) => {
    const page = await open(slowEcho.url);
    await chooseInterface(page, label);
    await send(page, 'one two three four five six');
    // The first chunk shows while the rest are still to come.
    await page.waitForSelector('#chat-log .bubble.agent >> text=streaming…');
    await waitForState(page, 'completed');
    const agentText = await page.$$eval('#chat-log .bubble.agent p.text', (all) => all.map((p) => p.textContent));
    expect(agentText).toContain('one two three four five six');
    const kinds = await page.$$eval('#timeline .timeline li', (all) => all.map((li) => li.getAttribute('data-kind')));
    expect(kinds.filter((k) => k === 'artifact')).toHaveLength(3);
    expect(await page.textContent('#timeline .artifact')).toContain('3 chunks');
    expect(await page.textContent('#timeline .artifact p.text')).toBe('one two three four five six');
    // The raw log: the request as sent, and each event of the stream.
    await page.click('#tab-log');
    const exchange = page.locator('#raw-log .exchange', { hasText: '(event stream)' }).last();
    expect((await exchange.locator('.line.request').textContent())?.endsWith(`→ POST ${slowEcho.url}${path}`)).toBe(true);
    expect(await exchange.locator('.sse').count()).toBeGreaterThanOrEqual(4);
    const curl = await exchange.locator('.copy-curl').getAttribute('data-curl');
    expect(curl).toMatch(/^curl -N -X POST /);
    expect(curl).toContain(`--data-raw '`);
    expect(curl).toContain('one two three four five six');
    await page.screenshot({ path: join(shots, `inspector-stream-${label.replace(/\W+/g, '-')}.png`) });
    expect(errorsOf(page)).toEqual([]);
    await page.close();
  },
  // Four pages at once in one Chromium: on a loaded two-core CI machine each has taken over 30 s.
  90_000,
);

test('over gRPC: the interface is listed and driven: a stream, a whole answer, a webhook; each call in the raw log', async () => {
  const page = await open(grpcEcho.url);
  const options = await page.$$eval('#interface option', (all) => all.map((o) => o.textContent));
  expect(options).toContain('A2A 1.0 · gRPC');
  await chooseInterface(page, 'A2A 1.0 · gRPC');
  await send(page, 'one two three four');
  await page.waitForSelector('#chat-log .bubble.agent >> text=streaming…');
  // A webhook registered over gRPC while the task works: its deliveries come signed.
  await page.click('#tab-push');
  await page.click('#register-push');
  await page.waitForSelector('#push-status >> text=Registered');
  await page.waitForSelector('#push-log .delivery .verified');
  await waitForState(page, 'completed');
  expect(await page.textContent('#timeline .artifact p.text')).toBe('one two three four');
  await page.click('#tab-log');
  const stream = page.locator('#raw-log .exchange', { hasText: 'SendStreamingMessage' }).last();
  const address = /^(127\.0\.0\.1:\d+)\/lf\.a2a\.v1\.A2AService\/SendStreamingMessage$/.exec(
    (await stream.locator('.line.request').textContent())!.replace(/^.*→ gRPC /, ''),
  )?.[1];
  expect(address).toBeDefined();
  expect(await stream.locator('.sse').count()).toBeGreaterThanOrEqual(4);
  await expect(stream.locator('.line.muted').textContent()).resolves.toContain('stream ended');
  const grpcurl = await stream.locator('.copy-curl').getAttribute('data-curl');
  expect(grpcurl).toMatch(/^grpcurl -plaintext -H 'a2a-version: 1\.0' -d '\{.*one two three four.*\}' /);
  expect(grpcurl!.endsWith(`${address} lf.a2a.v1.A2AService/SendStreamingMessage`)).toBe(true);
  expect(await page.locator('#raw-log .exchange', { hasText: 'CreateTaskPushNotificationConfig' }).count()).toBe(1);

  // Not streamed: one unary call, its status in the log.
  await page.click('#tab-timeline');
  await page.uncheck('#stream');
  await send(page, 'whole');
  await page
    .locator('#timeline h3 .state', { hasText: /^completed$/ })
    .last()
    .waitFor({ state: 'attached' });
  await page.click('#tab-log');
  const unary = page.locator('#raw-log .exchange', { hasText: 'A2AService/SendMessage' }).last();
  await expect(unary.locator('.line.response').textContent()).resolves.toContain('← 0 OK');
  expect(await unary.locator('.line.response.bad').count()).toBe(0);
  await page.screenshot({ path: join(shots, 'inspector-grpc.png') });
  expect(errorsOf(page)).toEqual([]);
  await page.close();
}, 30_000);

// Both at once, each on a page and an agent of its own: a check sends at most 20 requests a second,
// and most of each one's time is that wait.
describe('the Check tab', () => {
  test.concurrent('a2a check against the connected agent, grouped by version and binding, every exchange in the raw log', async () => {
    const page = await open(grpcEcho.url);
    await page.click('#tab-check');
    // The echo is slow here (1.5 s between chunks): subscribing to a running task is checked too.
    await page.fill('#check-slow-message', 'one two three four');
    await page.click('#run-check');
    await page.waitForSelector('#check-status >> text=/\\d+ passed, 0 failed/', { timeout: 60_000 });
    const groups = await page.$$eval('#check-report .check-group h4', (all) => all.map((h) => h.textContent));
    expect(groups).toEqual(
      expect.arrayContaining(['A2A 1.0, card', 'A2A 1.0, JSON-RPC', 'A2A 1.0, HTTP+JSON (REST)', 'A2A 1.0, gRPC', 'A2A 0.3, JSON-RPC']),
    );
    expect(await page.locator('#check-report .check-result.failed').count()).toBe(0);
    expect(await page.locator('#check-report .check-result.passed').count()).toBeGreaterThan(40);
    // Webhooks on loopback are allowed on this agent: the push check ran and passed; so did the subscription.
    for (const id of ['1.0-jsonrpc-push', '1.0-jsonrpc-subscribe', '1.0-grpc-stream'])
      expect(await page.getAttribute(`#check-report [data-check="${id}"]`, 'class')).toBe('check-result passed');
    await page.screenshot({ path: join(shots, 'inspector-check.png') });
    // Every request of the checks is in the raw log, gRPC calls too.
    await page.click('#tab-log');
    expect(await page.locator('#raw-log .exchange', { hasText: 'a2a-check-unknown-' }).count()).toBeGreaterThan(5);
    expect(await page.locator('#raw-log .exchange', { hasText: 'A2AService/GetTask' }).count()).toBeGreaterThan(0);
    expect(errorsOf(page)).toEqual([]);
    await page.close();
  }, 90_000);

  test.concurrent('on an agent that breaks a MUST: the failure says why and links to its exchange in the raw log', async () => {
    // An unknown task answered -32603, not TaskNotFoundError.
    // A body that is not JSON (the parse-error check's) is left to the router, which answers -32700.
    const jsonBody = express.json({ type: () => true });
    const app = express()
      .use((req, res, next) =>
        jsonBody(req, res, () => {
          const call = (req.body ?? {}) as { id?: unknown; method?: string; params?: { id?: string } };
          if (call.method === 'GetTask' && call.params?.id?.startsWith('a2a-check-unknown'))
            return void res.json({ jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'Internal error' } });
          next();
        }),
      )
      .use(echoRouter({ logger: pino({ level: 'silent' }) }));
    const { url } = await serve(app);
    const page = await open(url);
    await page.click('#tab-check');
    await page.click('#run-check');
    await page.waitForSelector('#check-status >> text=/1 failed.*\\(a MUST failed\\)/', { timeout: 60_000 });
    const failure = page.locator('#check-report [data-check="1.0-jsonrpc-get-unknown"]');
    expect(await failure.getAttribute('class')).toBe('check-result failed');
    await expect(failure.locator('.reason').textContent()).resolves.toContain('expected TaskNotFoundError (-32001); got -32603');
    await failure.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'inspector-check-failure.png') });
    // Its link opens the raw log at the exchange: the request it sent, the answer that came.
    const link = failure.locator('.exchange-link').first();
    const target = (await link.getAttribute('href'))!.slice(1);
    await link.click();
    expect(await page.isVisible('#panel-log')).toBe(true);
    const exchange = page.locator(`#${target}`);
    expect(await exchange.getAttribute('class')).toBe('exchange shown');
    await expect(exchange.textContent()).resolves.toMatch(/"method":"GetTask".*a2a-check-unknown-.*"code":-32603/s);
    expect(await inPage(page, 'document.activeElement?.id')).toBe(target);
    await page.screenshot({ path: join(shots, 'inspector-check-exchange.png') });
    expect(errorsOf(page)).toEqual([]);
    await page.close();
  }, 90_000);
});

test('signed cards: a badge says signed and valid with its key, not valid with why, or unsigned', async () => {
  const { generateKeyPairSync } = await import('node:crypto');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  // A signing router names card.url in its cards: mounted once its app listens, so that it is known.
  const signingApp = express();
  const signedUrl = (await serve(signingApp)).url;
  const signing = a2aRouter(
    async function* () {
      yield completed();
    },
    {
      card: { name: 'Signed', version: '1.0.0', url: `${signedUrl}/` },
      logger: pino({ level: 'silent' }),
      cardSigning: { privateKey, kid: 'card-key-1' },
    },
  );
  signingApp.use(signing);
  // The same card with its name changed after it was signed, beside the same keys.
  const tampered = express()
    .get('/.well-known/jwks.json', async (_req, res) => res.json(await (await fetch(`${signedUrl}/.well-known/jwks.json`)).json()))
    .get('/.well-known/agent-card.json', async (req, res) => {
      const card = (await (
        await fetch(`${signedUrl}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
      ).json()) as Record<string, unknown>;
      if (req.get('a2a-version') !== '1.0') return void res.status(404).end();
      res.json({ ...card, name: 'Signed, then changed' });
    });
  const tamperedUrl = (await serve(tampered)).url;
  const page = await open(signedUrl);
  const badge = page.locator('#cards details[data-protocol="1.0"] summary .signature');
  await expect(badge.textContent()).resolves.toBe('signed, valid · card-key-1');
  await expect(page.locator('#cards details[data-protocol="0.3"] summary .signature').textContent()).resolves.toBe(
    'signed, valid · card-key-1',
  );
  await page.screenshot({ path: join(shots, 'inspector-signed-card.png') });
  await page.fill('#agent-url', tamperedUrl);
  await page.click('#connect-form button[type="submit"]');
  await page.waitForSelector('#cards details[data-protocol="1.0"] summary .signature.bad');
  await expect(page.locator('#cards details[data-protocol="1.0"] summary .signature').textContent()).resolves.toBe(
    'signed, not valid · card-key-1',
  );
  await expect(page.locator('#cards details[data-protocol="1.0"] .signature-reason').textContent()).resolves.toBe(
    'the signature does not match the card',
  );
  await page.fill('#agent-url', echo.url);
  await page.click('#connect-form button[type="submit"]');
  await page.waitForSelector('#cards details[data-protocol="1.0"] summary .signature:text("unsigned")');
  expect(errorsOf(page)).toEqual([]);
  await page.close();
  await signing.close();
});

test('a message that is not streamed comes back whole; files and data parts travel too', async () => {
  const page = await open(echo.url);
  await page.uncheck('#stream');
  await page.fill('#message-text', 'with attachments');
  await page.click('#composer summary');
  await page.setInputFiles('#message-files', { name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from('file body') });
  await page.fill('#message-data', '{"answer": 42}');
  await page.click('#send');
  await waitForState(page, 'completed');
  const bubbles = page.locator('#chat-log .bubble.agent');
  await expect(bubbles.locator('a[download="note.txt"]').count()).resolves.toBe(1);
  expect(JSON.parse((await bubbles.locator('pre.data').first().textContent())!)).toEqual({ answer: 42 });
  expect(await page.$$eval('#timeline .timeline li', (all) => all.map((li) => li.getAttribute('data-kind')))).toEqual(['answer']);
  await page.close();
});

test('the currency agent asks for what is missing: the answer continues the same task (A2A 0.3)', async () => {
  const page = await open(currency.url);
  await chooseInterface(page, 'A2A 0.3 · JSON-RPC');
  await send(page, 'convert 100 USD');
  await waitForState(page, 'input-required');
  const taskId = await page.textContent('#timeline h3 code');
  await expect(page.textContent('#continuing')).resolves.toContain(`answers task ${taskId}`);
  await send(page, 'to EUR');
  await waitForState(page, 'completed');
  expect(await page.textContent('#timeline h3 code')).toBe(taskId);
  const last = await page.locator('#chat-log .bubble.agent').last().textContent();
  expect(last).toContain('EUR');
  expect(await page.textContent('#continuing')).toBe('');
  await page.screenshot({ path: join(shots, 'inspector-input-required.png') });
  await page.close();
});

test('cancel stops a running task', async () => {
  const page = await open(slowEcho.url);
  await send(page, 'a long answer that will not finish');
  await page.waitForSelector('#chat-log .bubble.agent >> text=streaming…');
  await page.click('#cancel');
  await waitForState(page, 'canceled');
  expect(await page.$$eval('#timeline .timeline li .state', (all) => all.map((s) => s.textContent))).toContain('canceled');
  await page.close();
});

test('push notifications: one click registers the inspector’s receiver; each delivery is shown with its signature checked', async () => {
  const page = await open(slowEcho.url);
  await send(page, 'notify me about this');
  await page.waitForSelector('#timeline h3 code');
  await page.click('#tab-push');
  await page.click('#register-push');
  await page.waitForSelector('#push-status >> text=Registered');
  await page.waitForSelector('#push-log .delivery .verified');
  expect(await page.textContent('#push-log .delivery .verified')).toContain(`verified against ${slowEcho.url}/.well-known/jwks.json`);
  await waitForState(page, 'completed');
  expect(await page.$$eval('#timeline .timeline li', (all) => all.map((li) => li.getAttribute('data-kind')))).toContain('push');
  await page.screenshot({ path: join(shots, 'inspector-push.png') });

  // Checked against another agent's keys, the signature does not hold, and the page says so.
  await page.fill('#jwks-url', `${echo.url}/.well-known/jwks.json`);
  await page.click('#tab-timeline');
  await send(page, 'and about this one');
  await page.waitForSelector('#timeline h3 .state >> text=working');
  await page.click('#tab-push');
  await page.click('#register-push');
  await page.waitForSelector('#push-log .delivery .unverified');
  expect(await page.textContent('#push-log .delivery .unverified')).toContain('not verified: invalid-signature');
  await page.close();
}, 30_000);

test('tasks: listed over 1.0, opened by id with their history, followed while they run', async () => {
  // A task started elsewhere, still running when the page opens it: two texts of seven words
  // come back in six chunks 1.5 s apart, so the page has 7.5 s to list and open it (one text,
  // 3 s, was too little on a machine busy with the rest of the suite).
  const halves = ['started from another client, and still running, ', 'its echo cut into six chunks.'];
  const text = halves.join('');
  const client = new A2AClient10(slowEcho.url);
  const started = await client.sendMessage({
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: halves.map((half) => ({ text: half })) },
    configuration: { returnImmediately: true },
  });
  const id = 'task' in started ? started.task.id : '';
  const page = await open(slowEcho.url);
  await page.click('#list-tasks');
  await page.waitForSelector(`#task-list code >> text=${id}`);
  await page.fill('#open-task-id', id);
  await page.click('#open-task');
  await page.waitForSelector('#tasks-status >> text=following it');
  await waitForState(page, 'completed');
  // The history read by id, then the events that came while following it.
  const history = await page.textContent('#timeline [aria-label="History"]');
  for (const half of halves) expect(history).toContain(half.trim());
  expect(await page.$$eval('#timeline .timeline li', (all) => all.map((li) => li.getAttribute('data-kind')))).toContain('artifact');
  // Its text whole, however it was cut: a task read after its second chunk holds two parts
  // (shown as two), and what came while following joins the last.
  expect(await page.$$eval('#timeline .artifact p.text', (all) => all.map((p) => p.textContent).join(''))).toBe(text);

  // 0.1.0 has no way to list tasks: the page says so rather than failing.
  await chooseInterface(page, 'A2A 0.1.0 · JSON-RPC');
  expect(await page.isDisabled('#list-tasks')).toBe(true);
  await expect(page.textContent('#list-note')).resolves.toContain('has no way to list tasks');
  await page.close();
}, 30_000);

test('a broken card: each problem listed, and marked on the card where it is', async () => {
  const page = await open(brokenUrl);
  await expect(page.textContent('#connection-status')).resolves.toMatch(/Connected: one card \(A2A 0\.3\), \d+ problems\./);
  const problems = await page.$$eval('.problems li', (all) => all.map((li) => li.textContent));
  expect(problems).toEqual(expect.arrayContaining(['/name must be string', '(the card) missing required property "skills"']));
  const marked = await page.$$eval('.json-line.problem', (all) => all.map((line) => line.getAttribute('data-pointer')));
  expect(marked).toEqual(expect.arrayContaining(['/name', '/capabilities/streaming', '']));
  expect(await page.textContent('.json-line.problem[data-pointer="/name"] .problem-note')).toContain('must be string');
  // A problem's link takes the reader (and the keyboard focus) to it.
  await page.click('.problems li button >> text=/name');
  expect(await inPage(page, "document.activeElement?.getAttribute('data-pointer')")).toBe('/name');
  await page.screenshot({ path: join(shots, 'inspector-broken-card.png') });
  await page.close();
});

test('credentials live in the page: without them the agent refuses, with them it answers; nothing is stored', async () => {
  const page = await open(lockedEcho.url);
  await send(page, 'let me in');
  await page.waitForSelector('#chat-log .bubble.error');
  expect(await page.textContent('#chat-log .bubble.error')).toMatch(/401|auth/i);
  await page.click('#credentials summary');
  await page.selectOption('#auth-kind', 'api-key');
  await page.fill('#auth-value', 'open-sesame');
  await page.click('#connect-form button[type="submit"]');
  await page.waitForSelector('#connection-status >> text=Connected');
  await send(page, 'let me in');
  await waitForState(page, 'completed');
  await page.click('#tab-log');
  const headers = await page
    .locator('#raw-log .exchange', { hasText: '(event stream)' })
    .last()
    .locator('dl.headers')
    .first()
    .textContent();
  expect(headers).toContain('x-api-keyopen-sesame');
  const stored = await inPage(page, '[localStorage.length, sessionStorage.length, document.cookie]');
  expect(stored).toEqual([0, 0, '']);
  // Taken out of the page, the key is gone: nothing on the server sends it on.
  await page.click('#tab-timeline');
  await page.fill('#auth-value', '');
  await send(page, 'still in?');
  const refused = page.locator('#chat-log .bubble.error').nth(1);
  await refused.waitFor();
  expect(await refused.textContent()).toMatch(/401|auth/i);
  await page.close();
}, 30_000);

test('keyboard and themes: a message sent with Ctrl+Enter from the keyboard alone; the dark theme on request', async () => {
  const page = await open(echo.url);
  await page.focus('#message-text');
  await page.keyboard.type('typed only');
  await page.keyboard.press('Control+Enter');
  await waitForState(page, 'completed');
  // The tabs move with the arrow keys.
  await page.focus('#tab-timeline');
  await page.keyboard.press('ArrowRight');
  expect(await page.isVisible('#panel-log')).toBe(true);
  expect(await inPage(page, 'document.activeElement?.id')).toBe('tab-log');
  // Every control has a name a screen reader can say.
  const unnamed = await inPage(
    page,
    `[...document.querySelectorAll('input, select, textarea, button')]
      .filter((el) => !el.labels?.length && !el.getAttribute('aria-label') && !el.textContent.trim())
      .map((el) => el.id)`,
  );
  expect(unnamed).toEqual([]);
  const background = 'getComputedStyle(document.body).backgroundColor';
  const light = await inPage(page, background);
  await page.click('#theme');
  await page.click('#theme');
  expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
  expect(await inPage(page, background)).not.toBe(light);
  await page.screenshot({ path: join(shots, 'inspector-dark.png') });
  await page.close();
});

test('the router option serves the same page beside an agent, opened on the agent itself', async () => {
  const app = express().use(echoRouter({ logger: pino({ level: 'silent' }), inspector: true }));
  const { url } = await serve(app);
  const page = await open(undefined, `${url}/inspector/`);
  expect(await page.inputValue('#agent-url')).toBe(`${url}/`);
  await expect(page.textContent('#connection-status')).resolves.toBe('Connected: 3 cards (A2A 1.0, 0.3, 0.1.0), no problems.');
  await send(page, 'from the router');
  await waitForState(page, 'completed');
  expect(await timelineState(page)).toBe('completed');
  expect(errorsOf(page)).toEqual([]);
  await page.close();
});

test('an agent built with the official SDK (0.3) that answers with a message alone: shown in the chat, streamed or not', async () => {
  const sdk = await serveSdkAgent(({ text, contextId }) => [
    { kind: 'message', messageId: `reply-${text}`, role: 'agent', parts: [{ kind: 'text', text: `you said ${text}` }], contextId },
  ]);
  try {
    const page = await open(sdk.url);
    await expect(page.textContent('#connection-status')).resolves.toBe('Connected: one card (A2A 0.3), no problems.');
    await send(page, 'streamed');
    await page.waitForSelector('#chat-log .bubble.agent >> text=you said streamed');
    await page.uncheck('#stream');
    await send(page, 'whole');
    await page.waitForSelector('#chat-log .bubble.agent >> text=you said whole');
    expect(await page.$$eval('#chat-log .bubble.error', (all) => all.length)).toBe(0);
    expect(errorsOf(page)).toEqual([]);
    await page.close();
  } finally {
    await sdk.close();
  }
});

test('a stream of thousands of chunks: drawn as it goes without stalling the page, every chunk in the artifact, the timeline showing the newest', async () => {
  const chunks = 3_000;
  const long = a2aRouter(
    async function* () {
      for (let i = 1; i <= chunks; i++) yield artifact(`chunk ${i};`, { append: i > 1, lastChunk: i === chunks });
      yield completed();
    },
    { card: { name: 'Long streams', version: '1' }, logger: pino({ level: 'silent' }), inspector: true },
  );
  const { url } = await serve(express().use(long));
  const page = await open(undefined, `${url}/inspector/`);
  await send(page, 'go');
  await waitForState(page, 'completed');
  const text = await page.textContent('#timeline .artifact p.text');
  expect(text?.startsWith('chunk 1;chunk 2;')).toBe(true);
  expect(text?.endsWith(`chunk ${chunks};`)).toBe(true);
  expect(await page.textContent('#timeline .artifact .meta')).toBe(`artifact-0 · ${chunks} chunks`);
  expect(await page.textContent('#timeline .timeline-hidden')).toMatch(/^[\d,]+ earlier events not shown$/);
  expect(await page.locator('#timeline .timeline li').count()).toBe(500);
  await page.close();
}, 60_000);
