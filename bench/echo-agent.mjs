// What the bench's scripts share about the echo agent: how to start it as `pnpm start` runs it,
// and the request each version sends it (run.mjs section 9, shipped-ab.mjs, dispatch.mjs).
import { spawn } from 'node:child_process';

/** The header every A2A 1.0 call carries (both our endpoint and the SDK's refuse a call without it). */
export const VERSION_HEADERS_10 = { 'a2a-version': '1.0' };

/**
 * The send of each version, request number `n`, with `text`: a stream when `stream` is true (0.1.0
 * streams a text starting with "stream", as the bench server's handler reads it).
 */
export const sends = {
  '0.1.0': (n, text) => ({
    jsonrpc: '2.0',
    id: n,
    method: text.startsWith('stream') ? 'tasks/sendSubscribe' : 'tasks/send',
    params: { id: `v-${n}-${process.pid}`, message: { role: 'user', parts: [{ type: 'text', text }] } },
  }),
  0.3: (n, text, stream) => ({
    jsonrpc: '2.0',
    id: n,
    method: stream ? 'message/stream' : 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: `v-${n}`, parts: [{ kind: 'text', text }] } },
  }),
  '1.0 JSON-RPC': (n, text, stream) => ({
    jsonrpc: '2.0',
    id: n,
    method: stream ? 'SendStreamingMessage' : 'SendMessage',
    params: { message: { messageId: `v-${n}`, role: 'ROLE_USER', parts: [{ text }] } },
  }),
  '1.0 HTTP+JSON': (n, text) => ({ message: { messageId: `v-${n}`, role: 'ROLE_USER', parts: [{ text }] } }),
};

/** Where each of `sends`' versions is below the echo agent's mount. */
export const SEND_PATHS = { '0.1.0': '', 0.3: '/v0.3', '1.0 JSON-RPC': '/v1', '1.0 HTTP+JSON': '/v1/message:send' };

/**
 * Starts a checkout's echo agent as `pnpm start` runs it (`node dist/server.js`, logs at info to a
 * stdout that is read and discarded) on a free port; resolves once it says it listens.
 * `prefix` goes before node (`taskset -c 1`, say); `execArgv` after it (`--cpu-prof`, say).
 */
export function startEchoAgent(root, { prefix = [], execArgv = [] } = {}) {
  const script = `${root}/apps/echo-agent/dist/server.js`;
  const [command, ...argv] = [...prefix, process.execPath, ...execArgv, script];
  const child = spawn(command, argv, { env: { ...process.env, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk) => {
      text += chunk;
      const line = text.split('\n').find((l) => /"msg":"[^"]*listening/.test(l));
      if (!line) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({ child, url: JSON.parse(line).url.replace(/\/$/, '') });
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${root}: the echo agent exited with ${code}: ${text}`)));
  });
}
