// `a2a mcp` as an MCP host runs it: the MCP SDK's own client, over stdio (the CLI spawned, as
// Claude Desktop spawns it) and over Streamable HTTP on loopback, in front of the sample agents.
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import express from 'express';
import { pino } from 'pino';
import { SignJWT } from 'jose';
import { a2aRouter, apiKey, artifact, bearerJwt, completed, failed, filePart, oauth2Bearer, textOf, type AuthStrategy } from 'a2a-express';
import { serverPool, spawnAgent, type SpawnedAgent } from 'a2a-testing';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../dist/cli.js');
const apps = join(here, '../../../apps');

const { serve, closeAll } = serverPool();
let echo: SpawnedAgent;
/** An in-process agent that does not stream, takes its API key in a header of its own, and answers with files. */
let filer: string;
let currency: SpawnedAgent;
/** `a2a mcp --http` in front of the currency agent, and its endpoint. */
let httpServer: ChildProcess;
let httpUrl: string;
const clients: Client[] = [];

/** An MCP client connected to `a2a mcp <args>` over stdio. */
async function stdioClient(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stderr: 'ignore',
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function httpClient(): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(httpUrl)));
  clients.push(client);
  return client;
}

/** Runs the CLI to its end (a usage error), bounded in time. */
function a2a(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const texts = (result: CallToolResult) => result.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));

beforeAll(async () => {
  // The echo agent requires an API key; the currency agent answers from its offline snapshot (no network).
  [echo, currency] = await Promise.all([
    spawnAgent('node', ['dist/server.js'], { cwd: join(apps, 'echo-agent'), env: { PORT: '0', A2A_API_KEYS: 's3cret=tester' } }),
    spawnAgent('node', ['dist/server.js'], {
      cwd: join(apps, 'currency-agent'),
      env: { PORT: '0', FRANKFURTER_URL: 'http://127.0.0.1:9', RATES_TIMEOUT_MS: '500' },
    }),
  ]);
  const router = a2aRouter(
    async function* (ctx) {
      if (textOf(ctx.message) === 'fail') return yield failed('The ledger is closed today.');
      yield artifact([
        filePart({ name: 'pixel.png', mimeType: 'image/png', bytes: Buffer.from('png bytes').toString('base64') }),
        filePart({ name: 'notes.txt', mimeType: 'text/plain', bytes: Buffer.from('some notes').toString('base64') }),
        filePart({ name: 'report.pdf', mimeType: 'application/pdf', uri: 'https://files.example/report.pdf' }),
      ]);
      yield completed('Here are the files.');
    },
    {
      card: {
        name: 'Filer',
        version: '1.0.0',
        skills: [
          { id: 'look up: files!', name: 'Look up files', description: 'Finds files.', tags: [] },
          { id: 'look up: files?', name: 'Look up more files', description: 'Finds more files.', tags: [] },
        ],
      },
      streaming: false,
      auth: { strategies: [apiKey({ keys: { 'partner-key': 'partner' }, header: 'X-Partner-Key' })] },
      logger: pino({ level: 'silent' }),
    },
  );
  filer = (await serve(express().use(router))).url;
  httpServer = spawn(process.execPath, [cli, 'mcp', currency.url, '--http', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  httpUrl = await new Promise<string>((resolve, reject) => {
    let printed = '';
    const timer = setTimeout(() => reject(new Error(`no address printed: ${printed}`)), 15_000);
    httpServer.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+\/mcp)\s*$/m.exec(printed);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
  });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  const exited = new Promise((resolve) => httpServer.once('exit', resolve));
  httpServer.kill('SIGTERM');
  await exited;
  await Promise.all([echo.stop(), currency.stop(), closeAll()]);
});

describe('a2a mcp over stdio', () => {
  let echoClient: Client;
  beforeAll(async () => {
    echoClient = await stdioClient([echo.url], { A2A_API_KEY: 's3cret' });
  });

  test("each skill of the card is a tool: its id as the name, the skill's name, description and examples as its description, a message as its input", async () => {
    const { tools } = await echoClient.listTools();
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool).toMatchObject({ name: 'echo', title: 'Echo' });
    expect(tool!.description).toContain('Echo: Returns the message it is sent as an artifact');
    expect(tool!.description).toContain('Examples: "hello world".');
    expect(tool!.inputSchema).toMatchObject({ type: 'object', required: ['message'] });
    expect(Object.keys(tool!.inputSchema.properties!)).toEqual(['message', 'taskId', 'contextId', 'newTask']);
    const { serverInfo } = { serverInfo: echoClient.getServerVersion() };
    expect(serverInfo?.name).toBe('a2a-echo-agent');
  });

  test('a call sends the message with the API key from A2A_API_KEY and returns the answer as text, with the task in the structured content', async () => {
    const result = (await echoClient.callTool({ name: 'echo', arguments: { message: 'hello world' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(texts(result)).toEqual(['hello world']);
    expect(result.structuredContent).toMatchObject({ state: 'completed', taskId: expect.any(String), contextId: expect.any(String) });
  });

  test('without the API key a call is a tool error that says the agent refused it, and the server goes on serving', async () => {
    const client = await stdioClient([echo.url]);
    const refused = (await client.callTool({ name: 'echo', arguments: { message: 'hello' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(texts(refused).join('\n')).toMatch(/Authentication required/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
  });

  test("the agent's errors and bad arguments are tool errors with the reason, never a crash", async () => {
    const unknownTask = (await echoClient.callTool({
      name: 'echo',
      arguments: { message: 'hello', taskId: 'no-such-task' },
    })) as CallToolResult;
    expect(unknownTask.isError).toBe(true);
    expect(texts(unknownTask).join('\n')).toMatch(/not found/i);
    const noMessage = (await echoClient.callTool({ name: 'echo', arguments: { text: 'hello' } })) as CallToolResult;
    expect(noMessage.isError).toBe(true);
    expect(texts(noMessage).join('\n')).toMatch(/message/);
    const answered = (await echoClient.callTool({ name: 'echo', arguments: { message: 'still here' } })) as CallToolResult;
    expect(texts(answered)).toEqual(['still here']);
  });

  test('input-required: the result carries the question, and the next call of the tool answers it on the same task', async () => {
    const client = await stdioClient([currency.url]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['convert_currency']);
    const asked = (await client.callTool({ name: 'convert_currency', arguments: { message: 'convert 100 USD' } })) as CallToolResult;
    expect(asked.isError).toBeFalsy();
    expect(asked.structuredContent).toMatchObject({ state: 'input-required', question: 'Which currency should I convert 100 USD to?' });
    expect(texts(asked).join('\n')).toMatch(
      /^The agent asks for more: Which currency should I convert 100 USD to\?\nCall convert_currency again/,
    );
    const { taskId } = asked.structuredContent as { taskId: string };
    const answered = (await client.callTool({ name: 'convert_currency', arguments: { message: 'EUR' } })) as CallToolResult;
    expect(answered.structuredContent).toMatchObject({ state: 'completed', taskId, data: [{ amount: 100, from: 'USD', to: 'EUR' }] });
    const [sentence, data] = texts(answered);
    expect(sentence).toMatch(/^100 USD is [\d.]+ EUR\./);
    expect(JSON.parse(data!)).toMatchObject({ amount: 100, from: 'USD', to: 'EUR', rate: expect.any(Number) });
    // Done: the next call starts a new task.
    const next = (await client.callTool({ name: 'convert_currency', arguments: { message: 'convert 5 EUR to USD' } })) as CallToolResult;
    expect(next.structuredContent).toMatchObject({ state: 'completed' });
    expect((next.structuredContent as { taskId: string }).taskId).not.toBe(taskId);
  });
});

describe('a2a mcp: tool names, files, failures, credentials from the card', () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdioClient([filer, '--api-key', 'partner-key']);
  });

  test('skill ids become MCP tool names: other characters made _, the same name twice made unique', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.title])).toEqual([
      ['look_up__files_', 'Look up files'],
      ['look_up__files__2', 'Look up more files'],
    ]);
  });

  test("without streaming, the answer's files come back as an image, an embedded resource and a resource link, the key in the header the card names", async () => {
    const result = (await client.callTool({ name: 'look_up__files_', arguments: { message: 'find them' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const { taskId } = result.structuredContent as { taskId: string };
    expect(result.content).toEqual([
      { type: 'image', mimeType: 'image/png', data: Buffer.from('png bytes').toString('base64') },
      {
        type: 'resource',
        resource: {
          uri: `a2a://tasks/${taskId}/artifacts/notes.txt`,
          mimeType: 'text/plain',
          blob: Buffer.from('some notes').toString('base64'),
        },
      },
      { type: 'resource_link', uri: 'https://files.example/report.pdf', name: 'report.pdf', mimeType: 'application/pdf' },
      { type: 'text', text: 'Here are the files.' },
    ]);
  });

  test("a task the agent fails is a tool error with the agent's reason", async () => {
    const result = (await client.callTool({ name: 'look_up__files_', arguments: { message: 'fail' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(texts(result).join('\n')).toMatch(/ended failed: The ledger is closed today\.$/);
    expect(result.structuredContent).toMatchObject({ state: 'failed' });
  });
});

describe('a2a mcp: OAuth 2.0 client credentials and bearer tokens from the flags and the environment', () => {
  const secret = new TextEncoder().encode('a shared secret of thirty-two bytes or more');
  const token = (subject: string) =>
    new SignJWT({ sub: subject }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(secret);
  let tokensIssued = 0;
  let tokenUrl: string;
  /** An agent that takes only what `strategy` accepts, and says who called. */
  const guarded = async (strategy: AuthStrategy) => {
    const router = a2aRouter(
      async function* (ctx) {
        yield completed(`Hello, ${ctx.principal?.id ?? 'nobody'}.`);
      },
      {
        card: { name: 'Guarded', version: '1.0.0' },
        streaming: false,
        auth: { strategies: [strategy] },
        logger: pino({ level: 'silent' }),
      },
    );
    return (await serve(express().use(router))).url;
  };
  beforeAll(async () => {
    // A token endpoint stand-in: client credentials in HTTP Basic, a JWT back.
    const issuer = express().post('/token', express.urlencoded({ extended: false }), async (req, res) => {
      const basic = Buffer.from(String(req.headers.authorization).replace(/^Basic /, ''), 'base64').toString();
      if (basic !== 'orchestrator:client-secret' || req.body.grant_type !== 'client_credentials')
        return void res.status(401).json({ error: 'invalid_client' });
      tokensIssued++;
      res.json({ access_token: await token('orchestrator'), token_type: 'Bearer', expires_in: 3600 });
    });
    tokenUrl = `${(await serve(issuer)).url}/token`;
  });

  test("A2A_CLIENT_ID and A2A_CLIENT_SECRET get a token from the card's oauth2 scheme's token endpoint, used for every call", async () => {
    const url = await guarded(oauth2Bearer({ flows: { clientCredentials: { tokenUrl, scopes: {} } }, secret }));
    const client = await stdioClient([url], { A2A_CLIENT_ID: 'orchestrator', A2A_CLIENT_SECRET: 'client-secret' });
    const [tool] = (await client.listTools()).tools;
    for (const _ of [1, 2]) {
      const result = (await client.callTool({ name: tool!.name, arguments: { message: 'hi' } })) as CallToolResult;
      expect(texts(result)).toEqual(['Hello, orchestrator.']);
    }
    expect(tokensIssued).toBe(1);
  });

  test("--bearer goes to the card's http bearer scheme", async () => {
    const url = await guarded(bearerJwt({ secret }));
    const client = await stdioClient([url, '--bearer', await token('bearer-holder')]);
    const [tool] = (await client.listTools()).tools;
    const result = (await client.callTool({ name: tool!.name, arguments: { message: 'hi' } })) as CallToolResult;
    expect(texts(result)).toEqual(['Hello, bearer-holder.']);
  });
});

describe('a2a mcp --http', () => {
  test("lists the currency agent's skill and continues an input-required task, reporting progress to a caller that asked", async () => {
    const client = await httpClient();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['convert_currency']);
    expect(tools[0]!.description).toContain('Examples: "What is exchange rate between USD and GBP?"');
    const asked = (await client.callTool({ name: 'convert_currency', arguments: { message: 'convert 20 GBP' } })) as CallToolResult;
    expect(asked.structuredContent).toMatchObject({ state: 'input-required', question: 'Which currency should I convert 20 GBP to?' });
    const progress: Progress[] = [];
    const answered = (await client.callTool({ name: 'convert_currency', arguments: { message: 'JPY' } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(answered.structuredContent).toMatchObject({
      state: 'completed',
      taskId: (asked.structuredContent as { taskId: string }).taskId,
    });
    expect(texts(answered)[0]).toMatch(/^20 GBP is [\d.]+ JPY\./);
    expect(progress.map((p) => p.message)).toEqual(expect.arrayContaining(['working: Looking up the exchange rates...']));
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  });

  test("each HTTP session has its own waiting tasks: another client's call starts a task of its own", async () => {
    const first = await httpClient();
    const second = await httpClient();
    const asked = (await first.callTool({ name: 'convert_currency', arguments: { message: 'convert 7 USD' } })) as CallToolResult;
    expect(asked.structuredContent).toMatchObject({ state: 'input-required' });
    const other = (await second.callTool({ name: 'convert_currency', arguments: { message: 'EUR' } })) as CallToolResult;
    expect((other.structuredContent as { taskId: string }).taskId).not.toBe((asked.structuredContent as { taskId: string }).taskId);
    const answered = (await first.callTool({ name: 'convert_currency', arguments: { message: 'CHF' } })) as CallToolResult;
    expect(texts(answered)[0]).toMatch(/^7 USD is [\d.]+ CHF\./);
  });

  test('a request whose Host is not loopback is refused (DNS rebinding protection), before its body is read', async () => {
    const { port } = new URL(httpUrl);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { host: `attacker.example:${port}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  test('a host reachable from elsewhere needs --allow-remote; --port and --host go with --http', async () => {
    const remote = await a2a(['mcp', currency.url, '--http', '--host', '0.0.0.0']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/--host 0\.0\.0\.0 is reachable from elsewhere.*--allow-remote/);
    const portWithoutHttp = await a2a(['mcp', currency.url, '--port', '8080']);
    expect(portWithoutHttp.code).toBe(2);
    expect(portWithoutHttp.stderr).toMatch(/--port and --host go with --http/);
  });
});
