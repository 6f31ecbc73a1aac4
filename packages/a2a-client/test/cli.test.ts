// The `a2a` command line as a user runs it: a subprocess, against agents on loopback.
import express from 'express';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { serverPool, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { serveSdkAgent } from 'a2a-testing/sdk-agent';
import {
  a2aRouter,
  artifact,
  completed,
  dataPart,
  filePart,
  inputRequired,
  textOf,
  textPart,
  working,
  type TaskContext,
} from 'a2a-express';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../dist/cli.js');
const { serve, closeAll } = serverPool();

/** Runs the CLI with arguments (and stdin, and variables beside the test's own), bounded in time. */
function a2a(
  args: string[],
  stdin = '',
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}

let echo: SpawnedAgent;
let greeter: string;
const greeterTurns: TaskContext[] = [];
let greeterGrpc: { close(options?: { graceMs?: number }): Promise<void> } | undefined;
beforeAll(async () => {
  // Over gRPC too (A2A_GRPC_PORT, any free port, which its 1.0 and 0.3 cards list); webhooks on loopback allowed.
  echo = await spawnAgent('node', ['dist/server.js'], {
    cwd: join(here, '../../../apps/echo-agent'),
    env: { PORT: '0', A2A_GRPC_PORT: '0', A2A_PUSH_ALLOWLIST: '127.0.0.1' },
  });
  // A test agent with a multi-turn exchange: it asks for a name, then greets, with a file.
  const router = a2aRouter(
    async function* (ctx) {
      greeterTurns.push(ctx);
      if (ctx.isNewTask) return yield inputRequired('What is your name?');
      yield working('Thinking of a greeting…');
      yield artifact(`Hello, ${textOf(ctx.message)}!`);
      yield artifact([filePart({ name: '../../greeting.txt', bytes: Buffer.from('hi').toString('base64') })]);
      yield completed();
    },
    { card: { name: 'Greeter', version: '1.0.0' }, logger: pino({ level: 'silent' }) },
  );
  greeter = (await serve(express().use(router))).url;
  // Its gRPC server, which its cards list (the 0.3 card in additionalInterfaces), and the turns of which say so.
  const { serveGrpc } = await import('a2a-express/grpc');
  greeterGrpc = await serveGrpc(router, { port: 0, agentUrl: greeter });
});
/** Folders the tests save received files into, removed at the end. */
const scratch: string[] = [];
const scratchDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  await Promise.all([echo.stop(), greeterGrpc?.close({ graceMs: 100 }), closeAll()]);
});

describe('a2a', () => {
  test('--help for the tool and for each command', async () => {
    const main = await a2a(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/Commands:[\s\S]*card <url>[\s\S]*chat <url>/);
    for (const command of ['card', 'send', 'chat', 'get', 'cancel', 'resubscribe', 'push', 'mcp']) {
      const help = await a2a([command, '--help']);
      expect([command, help.code, help.stdout.startsWith(`a2a ${command}`)]).toEqual([command, 0, true]);
    }
  });

  test('each command loads what it uses when it runs: help and usage errors no package at all, card no card signing, checker or inspector', async () => {
    /** The modules a run of the CLI imported (URLs), as node's module hooks saw them resolved. */
    const imported = async (args: string[]) => {
      const file = join(scratchDir('a2a-imports-'), 'imported.txt');
      writeFileSync(file, '');
      const hooks = pathToFileURL(join(here, 'fixtures/record-imports.mjs')).href;
      const { code } = await a2a(args, '', {
        A2A_RECORD_IMPORTS: file,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${hooks}`,
      });
      return { code, urls: readFileSync(file, 'utf8').split('\n').filter(Boolean) };
    };
    const packages = (urls: string[]) => urls.filter((url) => /node_modules|a2a-types/.test(url));
    for (const args of [['--help'], ['send', '--help'], ['send']]) {
      const { code, urls } = await imported(args);
      expect({ args, code, cli: urls.some((url) => url.endsWith('/dist/cli.js')), packages: packages(urls) }).toEqual({
        args,
        code: args.includes('--help') ? 0 : 2,
        cli: true,
        packages: [],
      });
    }
    const heavy = (urls: string[]) =>
      urls.filter((url) => /@bufbuild|jose|@modelcontextprotocol|zod|\/dist\/(check|inspector|mcp)/.test(url));
    const card = await imported(['card', echo.url]);
    expect(card.code).toBe(0);
    expect(packages(card.urls)).toContainEqual(expect.stringMatching(/a2a-types/));
    expect(heavy(card.urls)).toEqual([]);
    // What card leaves alone, --verify loads (the card's signatures: jose and protobuf).
    expect(heavy((await imported(['card', echo.url, '--verify'])).urls)).toEqual(
      expect.arrayContaining([expect.stringMatching(/jose/), expect.stringMatching(/@bufbuild/)]),
    );
  });

  test('card shows the skills, capabilities and authentication', async () => {
    const { code, stdout } = await a2a(['card', echo.url]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Echo Agent v0\.1\.0/);
    expect(stdout).toMatch(/capabilities {2}streaming yes, pushNotifications yes/);
    expect(stdout).toMatch(/authentication {2}none advertised/);
    expect(stdout).toMatch(/Echo \[echo\]/);
  });

  test('card of something that is not a valid card: shown, each problem warned about, exit 1 (checking is its job)', async () => {
    const bad = await serve(express().get('/.well-known/agent.json', (_req, res) => void res.json({ name: 'x', url: 'http://x/' })));
    const { code, stdout, stderr } = await a2a(['card', bad.url]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^x v\?/);
    for (const missing of ['version', 'capabilities', 'skills']) {
      expect(stderr).toContain(`warning: the agent card departs from the A2A spec: (root) must have required property '${missing}'`);
    }
    const strict = await a2a(['card', '--strict', bad.url]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/not a valid A2A answer: invalid agent card: .*must have required property/);
  });

  test('send prints the answer', async () => {
    const { code, stdout } = await a2a(['send', echo.url, 'hello', 'from', 'the', 'cli']);
    expect(code).toBe(0);
    expect(stdout).toBe('hello from the cli\n[completed]\n');
  });

  test('send --stream shows the status updates and chunks live', async () => {
    const { code, stdout } = await a2a(['send', '--stream', echo.url, 'one two three four five six']);
    expect(code).toBe(0);
    expect(stdout).toBe('[working]\n[working] Echoing your message…\none two three four five six\n[completed]\n');
  });

  test('send --json prints the raw answer, for scripts: the 1.0 one by default, the 0.1.0 Task with --protocol 0.1', async () => {
    const { code, stdout } = await a2a(['send', '--json', echo.url, 'json please']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'artifact-0', name: 'echo' }] },
    });
    // 0.1.0 lets the client name a new task.
    const named = await a2a(['send', '--protocol', '0.1', '--json', '--task', 'cli-json', echo.url, 'json please']);
    expect(JSON.parse(named.stdout)).toMatchObject({ id: 'cli-json', status: { state: 'completed' }, artifacts: [{ name: 'echo' }] });
  });

  test('send --file attaches a file; files received are saved under their own name only', async () => {
    const out = scratchDir('a2a-cli-');
    const { code, stdout } = await a2a(['send', '--out', out, greeter, 'hi']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\[input-required\] What is your name\?/);
    const task = /--task (\S+)\)/.exec(stdout)![1]!;
    const answered = await a2a(['send', '--out', out, '--task', task, greeter, 'Grace']);
    expect(answered.stdout).toContain('Hello, Grace!');
    expect(answered.stdout).toContain(`saved ${join(out, 'greeting.txt')}`);
    expect(readFileSync(join(out, 'greeting.txt'), 'utf8')).toBe('hi');
    const attach = join(out, 'greeting.txt');
    const echoed = await a2a(['send', '--json', echo.url, '--file', attach]);
    expect(JSON.parse(echoed.stdout).task.artifacts[0].parts).toEqual([{ raw: 'aGk=', mediaType: 'text/plain', filename: 'greeting.txt' }]);
    const echoed01 = await a2a(['send', '--protocol', '0.1', '--json', echo.url, '--file', attach]);
    expect(JSON.parse(echoed01.stdout).artifacts[0].parts).toEqual([
      { type: 'file', file: { name: 'greeting.txt', bytes: 'aGk=', mimeType: 'text/plain' } },
    ]);
  });

  test('chat through stdin: an input-required exchange continues the same task', async () => {
    const before = greeterTurns.length;
    const out = scratchDir('a2a-chat-');
    const { code, stdout } = await a2a(['chat', '--out', out, greeter], 'hello\nAda\n');
    expect(code).toBe(0);
    expect(stdout).toContain('Greeter: What is your name? [input-required]');
    expect(stdout).toContain('Hello, Ada!');
    expect(readFileSync(join(out, 'greeting.txt'), 'utf8')).toBe('hi');
    const [first, second] = greeterTurns.slice(before);
    expect(second!.isNewTask).toBe(false);
    expect(second!.task.id).toBe(first!.task.id);
  });

  test('chat: Ctrl-C cancels the running task (tasks/cancel) rather than just leaving', async () => {
    const slow = await spawnAgent('node', ['dist/server.js'], {
      cwd: join(here, '../../../apps/echo-agent'),
      env: { PORT: '0', ECHO_DELAY_MS: '400' },
    });
    try {
      const child = spawn(process.execPath, [cli, 'chat', slow.url], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      const started = new Promise<void>((resolve) =>
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.includes('Echoing your message')) resolve();
        }),
      );
      child.stdin.end('a long message that takes a while to echo back\n');
      await started;
      child.kill('SIGINT');
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(stdout).toContain('canceling…');
      expect(stdout).toContain('[canceled]');
    } finally {
      await slow.stop();
    }
  });

  test('errors say what went wrong: JSON-RPC error with its code, unreachable server, usage', async () => {
    const missing = await a2a(['get', echo.url, 'no-such-task']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error -32001: Task not found/);
    const closed = await serve((_req, res) => res.end());
    await closed.close();
    const down = await a2a(['card', closed.url]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`cannot reach ${closed.url}/.well-known/agent.json: ECONNREFUSED`);
    const usage = await a2a(['send', echo.url]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/usage: send: nothing to send/);
  });

  test('get, cancel and push', async () => {
    const sent = JSON.parse((await a2a(['send', '--json', echo.url, 'kept'])).stdout) as { task: { id: string } };
    const id = sent.task.id;
    const got = await a2a(['get', '--history', '1', echo.url, id]);
    expect(got.stdout).toContain('kept');
    const cancel = await a2a(['cancel', echo.url, id]);
    expect(cancel.stderr).toMatch(/error -32002: Task cannot be canceled/);
    const push = await a2a(['push', 'get', '--json', echo.url, id]);
    expect(push).toMatchObject({ code: 0, stdout: '[]\n' });
    // Over 0.1.0, a task has one config: none set is an error.
    await a2a(['send', '--protocol', '0.1', '--task', 'cli-get', echo.url, 'kept']);
    const push01 = await a2a(['push', 'get', '--protocol', '0.1', echo.url, 'cli-get']);
    expect(push01.code).toBe(1);
    expect(push01.stderr).toMatch(/error -32001 \(Task not found\): Push notification config not found/);
  });

  test('over A2A 1.0 HTTP+JSON (--binding rest): send, stream, get and errors with their codes', async () => {
    const sent = await a2a(['send', '--binding', 'rest', '--json', echo.url, 'over rest']);
    const { task } = JSON.parse(sent.stdout) as { task: { id: string } };
    expect((await a2a(['get', '--binding', 'rest', echo.url, task.id])).stdout).toContain('[completed]');
    const streamed = await a2a(['send', '--binding', 'rest', '--stream', echo.url, 'one two three']);
    expect(streamed.stdout).toContain('one two three');
    const missing = await a2a(['get', '--binding', 'rest', echo.url, 'no-such-task']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/error -32001/);
  });

  test('over A2A 1.0 gRPC (--binding grpc): send, stream, get and errors with their codes', async () => {
    const sent = await a2a(['send', '--binding', 'grpc', '--json', echo.url, 'over grpc']);
    expect(sent.code).toBe(0);
    const { task } = JSON.parse(sent.stdout) as { task: { id: string } };
    // The same task over JSON-RPC: one agent, one store, whichever binding.
    expect((await a2a(['get', echo.url, task.id])).stdout).toContain('[completed]');
    expect((await a2a(['get', '--binding', 'grpc', echo.url, task.id])).stdout).toContain('[completed]');
    const streamed = await a2a(['send', '--binding', 'grpc', '--stream', echo.url, 'one two three']);
    expect(streamed.stdout).toContain('one two three');
    const missing = await a2a(['get', '--binding', 'grpc', echo.url, 'no-such-task']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/error -32001/);
  });
});

/** Runs a command under a pseudo-terminal (util-linux `script`), typing `input` into it, bounded in time. */
function inTerminal(command: string, input: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
    // Typed once the prompt is up, then Ctrl-D to leave.
    const typed = setInterval(() => {
      if (!output.includes('> ')) return;
      clearInterval(typed);
      child.stdin.write(input);
      setTimeout(() => child.stdin.write('\x04'), 1_000);
    }, 20);
  });
}

describe('a2a against servers it does not control', () => {
  // A stand-in for the reference JS sample server's departures, on loopback: its cancel answer
  // has a part without `type`, and its errors come as -32603 with the real error in `data`.
  let reference: string;
  let web: string;
  let mixed: string;
  beforeAll(async () => {
    const app = express().use(express.json());
    app.post('/', (req, res) => {
      const { id, method, params } = req.body as { id: number; method: string; params: { id: string } };
      if (method === 'tasks/cancel') {
        res.json({
          jsonrpc: '2.0',
          id,
          result: {
            id: params.id,
            status: { state: 'canceled', message: { role: 'agent', parts: [{ text: 'Task cancelled by request.' }] } },
          },
        });
      } else {
        res.json({
          jsonrpc: '2.0',
          id,
          error: { code: -32603, message: 'Internal error', data: { code: -32001, message: `Task not found: ${params.id}` } },
        });
      }
    });
    reference = (await serve(app)).url;
    // Not an agent at all: a web server with an HTML page for everything, 501 for POST.
    web = (
      await serve(
        express()
          .get(
            '/missing/*splat',
            (_req, res) => void res.status(404).type('html').send('<!DOCTYPE html><html><body>Not found</body></html>'),
          )
          .get('*splat', (_req, res) => void res.type('html').send('<!DOCTYPE html><html><body>Welcome</body></html>'))
          .post(
            '*splat',
            (_req, res) => void res.status(501).type('html').send('<!DOCTYPE HTML>\n<html><title>Unsupported method</title></html>'),
          ),
      )
    ).url;
    // An agent whose answer mixes text, data and a file in one artifact.
    const router = a2aRouter(
      async function* () {
        yield artifact([
          textPart('100 USD is 92.31 EUR (ECB, 2025-04-01).'),
          dataPart({ amount: 100, result: 92.31 }),
          textPart('here is the file'),
          filePart({ name: 'rates.csv', uri: 'https://files.example.com/rates.csv' }),
        ]);
        yield completed();
      },
      { card: { name: 'Mixed', version: '1.0.0' }, logger: pino({ level: 'silent' }) },
    );
    mixed = (await serve(express().use(router))).url;
  });

  test('an answer that departs from the spec is shown, each departure warned about on stderr, exit 0; --strict makes it fatal', async () => {
    const lenient = await a2a(['cancel', reference, 'ref-1']);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toBe('[canceled] Task cancelled by request.\n');
    expect(lenient.stderr).toBe(
      "warning: the tasks/cancel result departs from the A2A spec: /status/message/parts/0 must have required property 'type'\n",
    );
    const strict = await a2a(['cancel', '--strict', reference, 'ref-1']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(
      /^not a valid A2A answer: invalid tasks\/cancel result: \/status\/message\/parts\/0 must have required property 'type'/,
    );
  });

  test('an error wrapped in a -32603 shows the real one inside it', async () => {
    const { code, stderr } = await a2a(['get', reference, 'ref-2']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'error -32603 (Internal server error): Internal error\n  inside it: error -32001 (Task not found): Task not found: ref-2\n',
    );
  });

  test('a server that is not an A2A agent: one line each, saying what answered', async () => {
    const card = await a2a(['card', web]);
    expect(card.code).toBe(1);
    expect(card.stderr).toBe(`not an A2A agent: the agent card from ${web}/.well-known/agent.json is not JSON (text/html)\n`);
    const send = await a2a(['send', web, 'hello']);
    expect(send.code).toBe(1);
    expect(send.stderr).toBe(`${web}/ answered HTTP 501 (text/html): not an A2A agent at this URL\n`);
    const missing = await a2a(['card', `${web}/missing`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`${web}/missing/.well-known/agent.json answered HTTP 404 (text/html): not an A2A agent at this URL\n`);
  });

  test('parts never run together: each on its own line, text after text flowing on', async () => {
    const { code, stdout } = await a2a(['send', mixed, 'rate?']);
    expect(code).toBe(0);
    expect(stdout).toBe(
      '100 USD is 92.31 EUR (ECB, 2025-04-01).\n{\n  "amount": 100,\n  "result": 92.31\n}\nhere is the file\nfile https://files.example.com/rates.csv\n[completed]\n',
    );
    const streamed = await a2a(['send', '--stream', mixed, 'rate?']);
    expect(streamed.stdout).toContain('(ECB, 2025-04-01).\n{\n');
    expect(streamed.stdout).toContain('here is the file\nfile https://');
  });

  test('a URL without a scheme is taken as http://; a scheme other than http(s) is a usage error', async () => {
    const bare = await a2a(['card', echo.url.replace('http://', '')]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^Echo Agent/);
    const ftp = await a2a(['card', 'ftp://127.0.0.1:21']);
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toMatch(/only http and https agents are supported/);
  });

  test('chat in a terminal shows what is typed', async () => {
    const raw = await inTerminal(`${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} chat ${echo.url}`, 'typed words\r');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the terminal's escape sequences.
    const output = raw.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''); // colours and cursor moves
    // The line typed is echoed after the prompt (not only in the agent's answer), then answered.
    expect(output).toMatch(/> typed words\r/);
    expect(output).toContain('Echo Agent: Echoing your message…');
  });

  test('the README command `pnpm --silent a2a card --json` prints only JSON on stdout', async () => {
    const root = join(here, '../../..');
    const child = spawn('npx', ['--yes', 'pnpm@10', '--silent', 'a2a', 'card', '--json', echo.url], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'Echo Agent' });
  }, 70_000);
});

describe('a2a over A2A 0.3', () => {
  /** An agent built with the official SDK's 0.3 server: no 0.1.0 card, so the CLI finds 0.3 itself. */
  async function sdkAgent(): Promise<string> {
    const server = await serveSdkAgent(({ text, contextId }) => [
      { kind: 'message', messageId: 'reply', role: 'agent', parts: [{ kind: 'text', text: `you said ${text}` }], contextId },
    ]);
    sdkServers.push(server);
    return server.url;
  }
  const sdkServers: { close(): Promise<void> }[] = [];
  afterAll(() => Promise.all(sdkServers.map((s) => s.close())));

  test('--protocol 0.3: card, send, send --stream and --json against a kit agent', async () => {
    const card = await a2a(['card', '--protocol', '0.3', echo.url]);
    expect(card.code).toBe(0);
    expect(card.stdout).toContain(`endpoint  ${echo.url}/v0.3 (A2A 0.3)`);
    const sent = await a2a(['send', '--protocol', '0.3', echo.url, 'hello', 'over', '0.3']);
    expect(sent).toMatchObject({ code: 0, stdout: 'hello over 0.3\n[completed]\n' });
    const streamed = await a2a(['send', '--protocol', '0.3', '--stream', echo.url, 'one two three four five six']);
    expect(streamed.stdout).toBe('[working]\n[working] Echoing your message…\none two three four five six\n[completed]\n');
    const json = await a2a(['send', '--protocol', '0.3', '--json', echo.url, 'raw']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      kind: 'task',
      status: { state: 'completed' },
      artifacts: [{ artifactId: 'artifact-0' }],
    });
    const task = JSON.parse(json.stdout) as { id: string };
    const got = await a2a(['get', '--protocol', '0.3', '--json', echo.url, task.id]);
    expect(JSON.parse(got.stdout)).toMatchObject({ kind: 'task', id: task.id, contextId: expect.any(String) });
  });

  test('auto: an agent with only a 0.3 card is spoken to in 0.3; a kit agent in 1.0, the newest it serves', async () => {
    const sdk = await sdkAgent();
    const card = await a2a(['card', sdk]);
    expect(card.stdout).toContain('(A2A 0.3)');
    const sent = await a2a(['send', sdk, 'hi']);
    expect(sent).toMatchObject({ code: 0, stdout: '[completed] you said hi\n' });
    expect((await a2a(['card', echo.url])).stdout).toContain(`endpoint  ${echo.url}/v1 (A2A 1.0)`);
    expect((await a2a(['card', '--protocol', '0.1', echo.url])).stdout).toContain('(A2A 0.1.0)');
  });

  test('chat over 0.3: the agent names the new task, and the answer to its question continues it', async () => {
    const before = greeterTurns.length;
    const { code, stdout } = await a2a(['chat', '--protocol', '0.3', '--out', scratchDir('a2a-chat03-'), greeter], 'hello\nLin\n');
    expect(code).toBe(0);
    expect(stdout).toContain('Greeter: What is your name? [input-required]');
    expect(stdout).toContain('Hello, Lin!');
    const [first, second] = greeterTurns.slice(before);
    expect(second!.isNewTask).toBe(false);
    expect(second!.task.id).toBe(first!.task.id);
  });

  test('--binding rest and grpc: each call over that binding, as the agent saw it; an input-required turn answered over the other', async () => {
    const before = greeterTurns.length;
    const out = scratchDir('a2a-cli03-');
    const asked = await a2a(['send', '--protocol', '0.3', '--binding', 'grpc', greeter, 'hi']);
    expect(asked.stdout).toMatch(/\[input-required\] What is your name\?/);
    const task = /--task (\S+)\)/.exec(asked.stdout)![1]!;
    const answered = await a2a([
      'send',
      '--protocol',
      '0.3',
      '--binding',
      'rest',
      '--stream',
      '--out',
      out,
      '--task',
      task,
      greeter,
      'Grace',
    ]);
    expect(answered).toMatchObject({ code: 0, stdout: expect.stringContaining('Hello, Grace!') });
    // The 0.3 proto's file part has no name: saved under one of the CLI's own.
    const saved = /saved (\S+)/.exec(answered.stdout)?.[1];
    expect([dirname(saved!), readFileSync(saved!, 'utf8')]).toEqual([out, 'hi']);
    expect(greeterTurns.slice(before).map((turn) => [turn.call.protocol, turn.call.binding, turn.task.id])).toEqual([
      ['0.3', 'grpc', task],
      ['0.3', 'rest', task],
    ]);
    // The task read back over each, with its history: the same 0.3 Task whichever binding.
    const [rest, grpc] = await Promise.all(
      ['rest', 'grpc'].map((binding) => a2a(['get', '--protocol', '0.3', '--binding', binding, '--history', '2', '--json', greeter, task])),
    );
    expect(JSON.parse(rest!.stdout)).toMatchObject({ kind: 'task', id: task, status: { state: 'completed' }, history: [{}, {}] });
    expect(JSON.parse(grpc!.stdout)).toEqual(JSON.parse(rest!.stdout));
  });

  test('over 0.3 HTTP+JSON and gRPC against the echo agent: stream, get, cancel, push, resubscribe; errors with their 0.3 codes', async () => {
    await Promise.all(
      ['rest', 'grpc'].map(async (binding) => {
        const over = ['--protocol', '0.3', '--binding', binding];
        const streamed = await a2a(['send', ...over, '--stream', echo.url, 'one two three']);
        expect([binding, streamed.stdout]).toEqual([binding, '[working]\n[working] Echoing your message…\none two three\n[completed]\n']);
        const sent = JSON.parse((await a2a(['send', ...over, '--json', echo.url, `over ${binding}`])).stdout) as {
          id: string;
          artifacts: { parts: { text: string }[] }[];
        };
        expect(sent).toMatchObject({ kind: 'task', status: { state: 'completed' } });
        expect(sent.artifacts[0]!.parts.map((part) => part.text).join('')).toBe(`over ${binding}`);
        expect((await a2a(['get', ...over, '--history', '1', echo.url, sent.id])).stdout).toContain(`over ${binding}`);
        const cancel = await a2a(['cancel', ...over, echo.url, sent.id]);
        expect([binding, cancel.code, cancel.stderr]).toEqual([binding, 1, expect.stringMatching(/^error -32002/)]);
        const missing = await a2a(['get', ...over, echo.url, 'no-such-task']);
        expect([binding, missing.code, missing.stderr]).toEqual([binding, 1, expect.stringMatching(/^error -32001/)]);
        const hook = `http://127.0.0.1:9/${binding}`;
        // The agent answers with the token masked.
        const set = await a2a(['push', 'set', ...over, '--json', '--token', 'tok', echo.url, sent.id, hook]);
        expect(JSON.parse(set.stdout)).toMatchObject({ taskId: sent.id, pushNotificationConfig: { url: hook, token: '********' } });
        const got = await a2a(['push', 'get', ...over, '--json', echo.url, sent.id]);
        expect(JSON.parse(got.stdout)).toMatchObject({ taskId: sent.id, pushNotificationConfig: { url: hook } });
        // A finished task's events: its state, then the end.
        const followed = await a2a(['resubscribe', ...over, echo.url, sent.id]);
        expect([binding, followed.code, followed.stdout]).toEqual([binding, 0, '[completed]\n']);
      }),
    );
  });

  test('--protocol takes 0.1, 0.3, 1.0 or auto; --binding jsonrpc, rest or grpc, and one the card does not list is refused', async () => {
    const bad = await a2a(['card', '--protocol', '2', echo.url]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--protocol takes 0.1, 0.3, 1.0 or auto, got "2"');
    const badBinding = await a2a(['card', '--binding', 'smoke-signals', echo.url]);
    expect(badBinding.code).toBe(2);
    expect(badBinding.stderr).toContain('--binding takes jsonrpc, rest or grpc, got "smoke-signals"');
    // Asked for, a binding is used or refused, never swapped for another.
    const sdk = await sdkAgent();
    const unlisted = await a2a(['send', '--binding', 'grpc', sdk, 'hi']);
    expect([unlisted.code, unlisted.stderr]).toEqual([
      1,
      "--binding grpc: the agent's A2A 0.3 card lists no gRPC interface (it lists JSON-RPC)\n",
    ]);
    const old = await a2a(['send', '--protocol', '0.1', '--binding', 'rest', echo.url, 'hi']);
    expect([old.code, old.stderr]).toEqual([1, '--binding rest: A2A 0.1.0 has JSON-RPC alone, not HTTP+JSON\n']);
  });
});
