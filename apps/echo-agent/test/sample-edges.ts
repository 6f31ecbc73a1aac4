// The echo agent on each server it can run on, started as its files start it: Express
// (server.ts, the production server), Node's own HTTP server, and the fetch handler on Hono
// (@hono/node-server), Bun and Deno (src/runtimes/: one small file each; Bun and Deno from npm).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeCommand, spawnAgent, type SampleEdge, type SpawnedAgent } from 'a2a-testing';

export type { SampleEdge } from 'a2a-testing';

export const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repositoryRoot = join(appDir, '..', '..');

/** The command that starts the echo agent on `edge`. */
export function echoCommand(edge: SampleEdge): { command: string; args: string[] } {
  if (edge === 'express') return runtimeCommand('node', 'dist/server.js', repositoryRoot);
  const runtime = edge === 'bun' || edge === 'deno' ? edge : 'node';
  return runtimeCommand(runtime, `dist/runtimes/${edge}.js`, repositoryRoot);
}

/** Starts the echo agent on `edge` with `env`, once it says where it listens. */
export function startEcho(edge: SampleEdge, env: Record<string, string> = {}): Promise<SpawnedAgent> {
  const { command, args } = echoCommand(edge);
  return spawnAgent(command, args, { cwd: appDir, env: { PORT: '0', LOG_LEVEL: 'info', ...env }, timeoutMs: 30_000 });
}
