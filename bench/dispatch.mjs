// CPU per call of the kit's core, without HTTP: the echo agent's handler (as shipped) behind each
// version's dispatcher, called in this process (one call at a time, or --in-flight at once), for one
// checkout or two alternating.
// The machine's noise (BENCHMARKS.md) moves request/response figures by more than most single
// optimizations gain; this measure moves by a few per cent, and so gives each one its A/B.
//
//   node bench/dispatch.mjs [--against <other checkout, installed and built>] [--versions 0.1.0,0.3,1.0]
//        [--calls 20000] [--in-flight 1] [--turns 3]
// Each checkout runs in a child process of its own, `--turns` turns each; a turn's figure is the
// median of 7 batches of `--calls` calls, after one batch of warm-up.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sends } from './echo-agent.mjs';
import { median } from './median.mjs';

const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const here = fileURLToPath(new URL('..', import.meta.url));

if (process.env.DISPATCH_CHILD) {
  const root = process.env.DISPATCH_CHILD;
  const { pino } = await import(`${root}/apps/echo-agent/node_modules/pino/pino.js`);
  const { createAgentCore } = await import(`${root}/packages/a2a-express/dist/agent-core.js`);
  const { createEchoHandler, echoCard } = await import(`${root}/apps/echo-agent/dist/agent.js`);
  const { a2aMetrics } = await import(`${root}/packages/a2a-express/dist/index.js`);
  const { createWriteStream } = await import('node:fs');
  // As shipped: logs at info (to nowhere here), metrics on, push notifications on.
  const core = createAgentCore(createEchoHandler(), {
    card: echoCard,
    logger: pino({ level: 'info' }, createWriteStream('/dev/null')),
    metrics: a2aMetrics({ processMetrics: true }),
    pushNotifications: {},
  });
  const version = process.env.DISPATCH_VERSION;
  const endpoint = core.endpoints.find((e) => e.version.name === version);
  let n = 0;
  // The core's version names, as `sends` names them: its 1.0 dispatcher serves JSON-RPC.
  const send = sends[version === '1.0' ? '1.0 JSON-RPC' : version];
  const request = () => send(++n, 'hello, echo');
  const context = { principal: undefined, headers: {}, lastEventId: undefined };
  // Calls in flight at once: 1 measures the core alone; a server under load has several.
  const inFlight = Number(process.env.DISPATCH_IN_FLIGHT);
  const batch = async (count) => {
    let next = 0;
    const caller = async () => {
      while (next++ < count) {
        const answer = await endpoint.dispatch(request(), context);
        // What the transport does with it: the answer as text.
        if (!JSON.stringify(answer.response).includes('"result"')) throw new Error('the echo did not answer');
      }
    };
    await Promise.all(Array.from({ length: inFlight }, caller));
  };
  const calls = Number(process.env.DISPATCH_CALLS);
  await batch(calls);
  const perCall = [];
  for (let round = 0; round < 7; round++) {
    const before = process.cpuUsage();
    await batch(calls);
    const used = process.cpuUsage(before);
    perCall.push((used.user + used.system) / calls);
  }
  perCall.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify(perCall[3]));
  process.exit(0);
}

const checkouts = [here, option('--against')].filter(Boolean);
const versions = (option('--versions') ?? '0.1.0,0.3,1.0').split(',');
const calls = option('--calls') ?? '20000';
const inFlight = option('--in-flight') ?? '1';
const turns = Number(option('--turns') ?? '3');
for (const version of versions) {
  const figures = checkouts.map(() => []);
  for (let turn = 0; turn < turns; turn++) {
    checkouts.forEach((root, i) => {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
        env: { ...process.env, DISPATCH_CHILD: root, DISPATCH_VERSION: version, DISPATCH_CALLS: calls, DISPATCH_IN_FLIGHT: inFlight },
        encoding: 'utf8',
      });
      if (child.status !== 0) throw new Error(`${root}: ${child.stderr}`);
      figures[i].push(Number(child.stdout));
    });
  }
  const [ours, theirs] = figures.map(median);
  console.log(
    `${version.padEnd(6)} ${ours.toFixed(1)} µs of CPU per call` +
      (theirs === undefined ? '' : `, against ${theirs.toFixed(1)} µs: ${(ours / theirs).toFixed(2)}×`),
  );
}
