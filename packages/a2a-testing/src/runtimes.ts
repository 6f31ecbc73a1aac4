// Where the tests start an agent on a runtime other than the Node running them: Bun and Deno as
// the npm registry's packages carry them, with the flags each needs.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The servers a sample agent runs on: Express, Node's own HTTP server, the fetch handler on Hono, Bun or Deno. */
export type SampleEdge = 'express' | 'node' | 'hono' | 'bun' | 'deno';

/**
 * The runtime's own executable, as its npm package carries it, found from `root` (a directory
 * whose node_modules holds the package): not node_modules/.bin's shell shim, which would take
 * the SIGTERM a test stops the agent with and leave the runtime running.
 */
export function runtimeBinary(runtime: 'bun' | 'deno', root: string): string {
  const fromRoot = createRequire(join(root, 'package.json'));
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

/**
 * The command that runs `script` (a built JavaScript file) on `runtime`, Bun and Deno found from
 * `root`. Deno gets the network on loopback only, and what pino and the environment helpers read.
 */
export function runtimeCommand(runtime: 'node' | 'bun' | 'deno', script: string, root: string): { command: string; args: string[] } {
  if (runtime === 'node') return { command: 'node', args: [script] };
  if (runtime === 'bun') return { command: runtimeBinary('bun', root), args: [script] };
  return {
    command: runtimeBinary('deno', root),
    args: ['run', '--allow-net=127.0.0.1,localhost', '--allow-env', '--allow-read', '--allow-sys', '--unstable-no-legacy-abort', script],
  };
}
