// Helpers for this repository's tests: real servers on loopback, JSON-RPC calls over fetch,
// and an SSE reader. Every wait is bounded so a broken server fails a test instead of hanging it.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readSse } from 'a2a-client';
import type { JSONRPCError, JSONRPCId, Task, TaskEvent } from 'a2a-types';

/** A JSON-RPC response as a test reads it: `result` or `error`, whichever came. */
export interface RpcResponse<R = unknown> {
  jsonrpc: '2.0';
  id: JSONRPCId;
  result?: R;
  error?: JSONRPCError;
}

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`, without a trailing slash. */
  readonly url: string;
  close(): Promise<void>;
}

/** Listens with `app` (an Express app or any request listener) on 127.0.0.1 and a free port. */
export async function listen(
  app: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void,
): Promise<RunningServer> {
  const { createServer } = await import('node:http');
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Servers a test file starts, closed together: `const { serve, closeAll } = serverPool();
 * afterAll(closeAll);`.
 */
export function serverPool(): { serve: typeof listen; closeAll: () => Promise<void> } {
  const servers: RunningServer[] = [];
  return {
    async serve(app) {
      const server = await listen(app);
      servers.push(server);
      return server;
    },
    async closeAll() {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
  };
}

let nextId = 1;

/** Sends one JSON-RPC request and returns the parsed response (HTTP status kept). */
export async function rpc<R = Task>(
  url: string,
  method: string,
  params?: unknown,
  init: { id?: string | number | null; headers?: Record<string, string> } = {},
): Promise<RpcResponse<R> & { httpStatus: number }> {
  const id = 'id' in init ? init.id : nextId++;
  const res = await postJson(url, { jsonrpc: '2.0', id, method, params }, init.headers);
  return { ...((await res.json()) as RpcResponse<R>), httpStatus: res.status };
}

/** POSTs a value (or a raw string) as application/json. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
}

/** An open stream: HTTP status, headers, and its events as JSON-RPC responses. */
export interface OpenStream {
  readonly status: number;
  readonly headers: Headers;
  readonly events: AsyncGenerator<{ id: string | undefined; message: RpcResponse<TaskEvent> }>;
  /** Drops the connection, as a client that goes away does. */
  abort(): void;
}

/** Calls a streaming method and returns the stream without reading it yet. */
export async function openStream(
  url: string,
  method: string,
  params: unknown,
  init: { id?: string | number; headers?: Record<string, string>; eventIds?: boolean } = {},
): Promise<OpenStream> {
  const controller = new AbortController();
  // Event ids are sent to clients that ask (Prefer: sse-event-ids), as a2a-client does.
  const prefer: Record<string, string> = init.eventIds ? { prefer: 'sse-event-ids' } : {};
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...prefer, ...init.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: init.id ?? nextId++, method, params }),
    signal: controller.signal,
  });
  async function* events() {
    if (!res.body) return;
    try {
      for await (const e of readSse(res.body)) {
        yield { id: e.id, message: JSON.parse(e.data) as RpcResponse<TaskEvent> };
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  }
  return { status: res.status, headers: res.headers, events: events(), abort: () => controller.abort() };
}

/** Reads a stream to its end (or `max` events), failing after `timeoutMs`. */
export async function collect(
  stream: OpenStream,
  { max = Infinity, timeoutMs = 10_000 }: { max?: number; timeoutMs?: number } = {},
): Promise<{ id: string | undefined; message: RpcResponse<TaskEvent> }[]> {
  const out: { id: string | undefined; message: RpcResponse<TaskEvent> }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stream.abort();
      reject(new Error(`stream not finished after ${timeoutMs} ms (${out.length} events read)`));
    }, timeoutMs);
  });
  const read = (async () => {
    for await (const event of stream.events) {
      out.push(event);
      if (out.length >= max) break;
    }
    return out;
  })();
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for `promise`, failing with `what` after `ms` rather than at the test's own timeout. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The events of a client's stream (an SDK's async iterable), up to `max` of them (leaving the
 * stream then), or until it ends; rejects if that takes more than `timeoutMs`.
 */
export async function collectEvents<T>(events: AsyncIterable<T>, max = Infinity, timeoutMs = 10_000): Promise<T[]> {
  const out: T[] = [];
  await within(
    (async () => {
      for await (const event of events) {
        out.push(event);
        if (out.length >= max) break;
      }
    })(),
    timeoutMs,
    'the stream',
  );
  return out;
}

/**
 * The address a child process prints (`a2a inspect` prints its page's), read from its stdout:
 * the first `http://127.0.0.1:<port>/` ending a line, within `timeoutMs`. Its stdout must be piped.
 */
export function printedAddress(child: ChildProcess, timeoutMs = 15_000): Promise<string> {
  let printed = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address printed within ${timeoutMs} ms: ${printed}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+\/)\s*$/m.exec(printed);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing an address: ${printed}`));
    });
  });
}

/** A child process running an agent, with the URL it announced. */
export interface SpawnedAgent {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stdout so far. */
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts `command` with `args` and waits (bounded) for its "listening" log line, a pino JSON
 * line with a `url`. Pass PORT=0 in `env` to get a free port.
 */
export async function spawnAgent(
  command: string,
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    /**
     * Start it in a process group of its own, and signal the whole group: for a command such as
     * `npm start` that runs the agent as its child and does not pass SIGTERM on.
     */
    processGroup?: boolean;
  } = {},
): Promise<SpawnedAgent> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.processGroup ?? false,
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      if (options.processGroup && child.pid !== undefined) process.kill(-child.pid, name);
      else child.kill(name);
    } catch {
      // already gone
    }
  };
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal('SIGKILL');
      reject(new Error(`no listening line within ${options.timeoutMs ?? 15_000} ms:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      for (const line of stdout.split('\n')) {
        try {
          const parsed = JSON.parse(line) as { url?: string; msg?: string };
          if (parsed.url && /listening/.test(parsed.msg ?? '')) {
            clearTimeout(timer);
            resolve(parsed.url.replace(/\/$/, ''));
          }
        } catch {
          // not a complete JSON line yet
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
  return {
    url,
    child,
    output: () => stdout,
    stop: () =>
      new Promise((resolve) => {
        // Gone already: ended by itself (exitCode) or by a signal (signalCode, exitCode null), whose 'exit' has been emitted.
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        const killer = setTimeout(() => signal('SIGKILL'), 5_000);
        child.once('exit', (code) => {
          clearTimeout(killer);
          resolve(code);
        });
        signal('SIGTERM');
      }),
  };
}
export * from './postgres.js';
export * from './redis.js';
export * from './shared-stores.js';
export { droppingProxy, type DroppingProxy } from './dropping-proxy.js';

export {
  readLikeReferenceJsClient,
  readLikeReferencePythonClient,
  readStreamText,
  type ReferenceReading,
} from './reference-clients.js';
export { codeBlocks, codeBlockWith, pnpmCommand, runCommand, runPnpm, succeeded, type CommandResult } from './commands.js';
export { runtimeBinary, runtimeCommand, type SampleEdge } from './runtimes.js';
