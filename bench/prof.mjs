import { fork } from 'node:child_process';
import autocannon from 'autocannon';
const child = fork(new URL('./servers/a2a.mjs', import.meta.url), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] });
const { port } = await new Promise((r) => child.once('message', r));
let n = 0;
const r = await autocannon({ url: `http://127.0.0.1:${port}`, connections: 50, duration: 8, requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: JSON.stringify({ jsonrpc: '2.0', id: ++n, method: 'tasks/send', params: { id: `t-${n}`, message: { role: 'user', parts: [{ type: 'text', text: 'hello, echo' }] } } }) }) }] });
console.log('rps', r.requests.average);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
