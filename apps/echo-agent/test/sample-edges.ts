// The echo agent on each server it can run on, started as its files start it: Express
// (server.ts, the production server), Node's own HTTP server, and the fetch handler on Hono
// (@hono/node-server), Bun and Deno (src/runtimes/: one small file each; Bun and Deno from npm).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnAgent, type SpawnedAgent } from 'a2a-testing';

export const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const fromRoot = createRequire(join(appDir, '..', '..', 'package.json'));

/**
 * The runtimes' own executables, as the npm packages carry them: not node_modules/.bin's shell
 * shims, which would take the SIGTERM a test stops the agent with and leave the runtime running.
 */
function runtimeBinary(runtime: 'bun' | 'deno'): string {
  if (runtime === 'bun') return join(dirname(fromRoot.resolve('bun/package.json')), 'bin', 'bun.exe');
  const fromDeno = createRequire(fromRoot.resolve('deno/package.json'));
  const platform = `${process.platform}-${process.arch}`;
  for (const name of [`@deno/${platform}-glibc`, `@deno/${platform}`]) {
    try {
      return join(dirname(fromDeno.resolve(`${name}/package.json`)), 'deno');
    } catch {
      // not this platform's package
    }
  }
  throw new Error(`no deno binary for ${platform} under node_modules (install the deno package)`);
}

export type SampleEdge = 'express' | 'node' | 'hono' | 'bun' | 'deno';

/** The command that starts the echo agent on `edge`. */
export function echoCommand(edge: SampleEdge): { command: string; args: string[] } {
  switch (edge) {
    case 'express':
      return { command: 'node', args: ['dist/server.js'] };
    case 'node':
      return { command: 'node', args: ['dist/runtimes/node.js'] };
    case 'hono':
      return { command: 'node', args: ['dist/runtimes/hono.js'] };
    case 'bun':
      return { command: runtimeBinary('bun'), args: ['dist/runtimes/bun.js'] };
    case 'deno':
      // Loopback only, and what pino and the environment helpers read.
      return {
        command: runtimeBinary('deno'),
        args: [
          'run',
          '--allow-net=127.0.0.1,localhost',
          '--allow-env',
          '--allow-read',
          '--allow-sys',
          '--unstable-no-legacy-abort',
          'dist/runtimes/deno.js',
        ],
      };
  }
}

/** Starts the echo agent on `edge` with `env`, once it says where it listens. */
export function startEcho(edge: SampleEdge, env: Record<string, string> = {}): Promise<SpawnedAgent> {
  const { command, args } = echoCommand(edge);
  return spawnAgent(command, args, { cwd: appDir, env: { PORT: '0', LOG_LEVEL: 'info', ...env }, timeoutMs: 30_000 });
}
