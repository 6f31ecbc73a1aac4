// The `a2a` command line as a user runs it: a subprocess, against agents on loopback.
import express from 'express';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { serverPool, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { a2aRouter, artifact, completed, filePart, inputRequired, textOf, working, type TaskContext } from 'a2a-express';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../dist/cli.js');
const { serve, closeAll } = serverPool();

/** Runs the CLI with arguments (and stdin), bounded in time. */
function a2a(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
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
beforeAll(async () => {
  echo = await spawnAgent('node', ['dist/server.js'], { cwd: join(here, '../../../apps/echo-agent'), env: { PORT: '0' } });
  // A test agent with a multi-turn exchange: it asks for a name, then greets, with a file.
  const router = a2aRouter(async function* (ctx) {
    greeterTurns.push(ctx);
    if (ctx.isNewTask) return yield inputRequired('What is your name?');
    yield working('Thinking of a greeting…');
    yield artifact(`Hello, ${textOf(ctx.message)}!`);
    yield artifact([filePart({ name: '../../greeting.txt', bytes: Buffer.from('hi').toString('base64') })]);
    yield completed();
  }, { card: { name: 'Greeter', version: '1.0.0' }, logger: pino({ level: 'silent' }) });
  greeter = (await serve(express().use(router))).url;
});
afterAll(async () => Promise.all([echo.stop(), closeAll()]));

describe('a2a', () => {
  test('--help for the tool and for each command', async () => {
    const main = await a2a(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/Commands:[\s\S]*card <url>[\s\S]*chat <url>/);
    for (const command of ['card', 'send', 'chat', 'get', 'cancel', 'resubscribe', 'push']) {
      const help = await a2a([command, '--help']);
      expect([command, help.code, help.stdout.startsWith(`a2a ${command}`)]).toEqual([command, 0, true]);
    }
  });

  test('card shows the skills, capabilities and authentication', async () => {
    const { code, stdout } = await a2a(['card', echo.url]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Echo Agent v0\.1\.0/);
    expect(stdout).toMatch(/capabilities {2}streaming yes, pushNotifications yes/);
    expect(stdout).toMatch(/authentication {2}none advertised/);
    expect(stdout).toMatch(/Echo \[echo\]/);
  });

  test('card of something that is not a valid card: exit 1 with the problems', async () => {
    const bad = await serve(express().get('/.well-known/agent.json', (_req, res) => void res.json({ name: 'x', url: 'http://x/' })));
    const { code, stderr } = await a2a(['card', bad.url]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/not a valid A2A answer: invalid agent card: .*must have required property/);
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

  test('send --json prints the raw Task, for scripts', async () => {
    const { code, stdout } = await a2a(['send', '--json', '--task', 'cli-json', echo.url, 'json please']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ id: 'cli-json', status: { state: 'completed' }, artifacts: [{ name: 'echo' }] });
  });

  test('send --file attaches a file; files received are saved under their own name only', async () => {
    const out = mkdtempSync(join(tmpdir(), 'a2a-cli-'));
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
    expect(JSON.parse(echoed.stdout).artifacts[0].parts).toEqual([{ type: 'file', file: { name: 'greeting.txt', bytes: 'aGk=', mimeType: 'text/plain' } }]);
  });

  test('chat through stdin: an input-required exchange continues the same task', async () => {
    const before = greeterTurns.length;
    const out = mkdtempSync(join(tmpdir(), 'a2a-chat-'));
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
    const slow = await spawnAgent('node', ['dist/server.js'], { cwd: join(here, '../../../apps/echo-agent'), env: { PORT: '0', ECHO_DELAY_MS: '400' } });
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
    await a2a(['send', '--task', 'cli-get', echo.url, 'kept']);
    const got = await a2a(['get', '--history', '1', echo.url, 'cli-get']);
    expect(got.stdout).toContain('kept');
    const cancel = await a2a(['cancel', echo.url, 'cli-get']);
    expect(cancel.stderr).toMatch(/error -32002: Task cannot be canceled/);
    const push = await a2a(['push', 'get', echo.url, 'cli-get']);
    expect(push.code).toBe(1);
    expect(push.stderr).toMatch(/error -32001 \(Task not found\): Push notification config not found/);
  });
});
