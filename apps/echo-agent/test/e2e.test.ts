// The echo agent end to end: the built server started as its `start` script starts it, spoken
// to over a real loopback port.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listen, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import type { AgentCard } from 'a2a-types';
import { echoAgentSuite } from './echo-suite.js';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');

// What is the production server's own (server.ts): its listening line, its port and host. What a
// client sees is echo-suite.ts, run here on Express and in edges-*.test.ts on the other servers.
describe('echo agent, its production server', () => {
  let agent: SpawnedAgent;

  beforeAll(async () => {
    agent = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env: { PORT: '0', LOG_LEVEL: 'info' } });
  });
  afterAll(async () => {
    expect(await agent.stop()).toBe(0);
  });

  test('logs one line when listening, with its URL, and says it runs open, in memory', () => {
    const lines = agent
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; url?: string; url03?: string; authentication?: unknown; tasks?: string });
    expect(lines.filter((l) => /listening/.test(l.msg))).toHaveLength(1);
    expect(lines[0]!.url).toBe(`${agent.url}/`);
    expect(lines[0]!.url03).toBe(`${agent.url}/v0.3`);
    expect(lines[0]!.tasks).toBe('in memory');
    expect(lines[0]!.authentication).toBe('none (open to every client)');
  });

  test('a port that is taken: one fatal line saying so, exit code 1, no crash', async () => {
    const holder = await listen((_req, res) => res.end());
    const port = new URL(holder.url).port;
    const child = spawn(process.execPath, ['dist/server.js'], {
      cwd: appDir,
      env: { ...process.env, PORT: port },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    await holder.close();
    expect(code).toBe(1);
    expect(output).not.toMatch(/TypeError|at .*\.js:\d+/);
    expect(JSON.parse(output.trim())).toMatchObject({
      level: 60,
      code: 'EADDRINUSE',
      msg: `echo-agent could not start: port ${port} is in use (set PORT to another one)`,
    });
  });

  test('honours HOST', async () => {
    const named = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env: { PORT: '0', HOST: 'localhost' } });
    try {
      expect(named.url).toMatch(/^http:\/\/localhost:\d+$/);
      const card = (await (await fetch(`${named.url}/.well-known/agent.json`)).json()) as AgentCard;
      expect(card.url).toBe(`${named.url}/`);
    } finally {
      await named.stop();
    }
  });
});

echoAgentSuite('express');
