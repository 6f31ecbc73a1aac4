// Where a request's time goes (pnpm bench:where): the same request/response load on three servers
// in turn, each profiled with --cpu-prof, and each profile's self time split by where its code
// lives (a Node module, an npm package, a folder of the kit, the agent, the collector), per request.
//   the endpoint alone    the kit's HTTP endpoint with a canned answer (servers/endpoint-only.mjs;
//                         0.1.0 only, the one version it answers)
//   the agent without     the echo agent less call logs, metrics, push and retention
//                         (servers/echo-without.mjs)
//   the agent as shipped  the echo agent as `pnpm start` runs it
// What one column has and the next has not is what that step costs: the core and the store, then
// the parts users rely on. A profiled process runs slower than an unprofiled one, so the figures
// are larger than bench:shipped's CPU a request; they are for comparing columns, not for quoting.
//
//   node bench/where-time-goes.mjs [--versions 0.1.0,0.3,1.0,1.0-rest] [--seconds 8] [--warm-up 2] [--write]
// `--write` saves each version's table to bench/profiles/where-time-goes-<version>.txt.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWith, onCpu1, startBenchServer, startEchoAgent } from './echo-agent.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const here = fileURLToPath(new URL('..', import.meta.url));
const VERSIONS = { '0.1.0': '0.1.0', 0.3: '0.3', '1.0': '1.0 JSON-RPC', '1.0-rest': '1.0 HTTP+JSON' };
const versions = option('--versions', '0.1.0').split(',');
for (const version of versions) {
  if (!(version in VERSIONS)) {
    console.error(`--versions: no version ${version} (${Object.keys(VERSIONS).join(', ')})`);
    process.exit(2);
  }
}
const seconds = Number(option('--seconds', 8));
const WARM_UP_SECONDS = Number(option('--warm-up', 2));

const SERVERS = {
  'endpoint alone': (execArgv) => startBenchServer(`${here}/bench/servers/endpoint-only.mjs`, { prefix: onCpu1(), execArgv }),
  'agent without parts': (execArgv) =>
    startEchoAgent(here, {
      prefix: onCpu1(),
      execArgv,
      script: `${here}/bench/servers/echo-without.mjs`,
      env: { BENCH_WITHOUT: 'call-logs,metrics,push,retention' },
    }),
  'agent as shipped': (execArgv) => startEchoAgent(here, { prefix: onCpu1(), execArgv }),
};

/** Where a profile node's code lives: its row in the table. */
function placeOf({ url, functionName }) {
  if (!url) {
    if (functionName.startsWith('(')) return functionName;
    // The functions ajv compiles from the schemas have no file.
    return /^validate\d+$/.test(functionName) ? 'ajv validators (compiled)' : '(native code)';
  }
  if (url.startsWith('node:')) return `node:${url.slice('node:'.length).split('/')[0]}`;
  if (url.includes('node_modules/')) {
    const [scopeOrName, name] = url.split('node_modules/').at(-1).split('/');
    return `npm ${scopeOrName.startsWith('@') ? `${scopeOrName}/${name}` : scopeOrName}`;
  }
  const kit = /a2a-express\/dist\/(?:([^/]+)\/)?/.exec(url);
  if (kit) return `kit ${kit[1] ?? '(top)'}`;
  if (url.includes('apps/echo-agent/')) return 'the echo agent';
  if (url.includes('a2a-types/dist/')) return 'a2a-types';
  return url.split('/').slice(-2).join('/');
}

/**
 * The profile's self time by place over the `windowMs` up to `endUs` (the measured load; the
 * start-up and warm-up before it and the shutdown after it are left out), in µs a request. An
 * `endUs` outside the profile (a clock the profile does not share) falls back to its end.
 */
function timeByPlace(profile, windowMs, requests, endUs) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const to = endUs > profile.startTime && endUs <= profile.endTime ? endUs : profile.endTime;
  const from = to - windowMs * 1000;
  const byPlace = new Map();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) continue;
    const place = placeOf(nodes.get(profile.samples[i]).callFrame);
    byPlace.set(place, (byPlace.get(place) ?? 0) + delta / requests);
  }
  return byPlace;
}

async function profiled(version, name) {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-where-'));
  const server = await SERVERS[name](['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  try {
    await loadWith(server, VERSIONS[version], WARM_UP_SECONDS);
    const result = await loadWith(server, VERSIONS[version], seconds);
    // When the load ended, on the clock the profile's timestamps use (both are the monotonic
    // clock, in µs): the shutdown after it (pino's exit hook, the profile's writing) is left out.
    const loadEndedUs = Number(process.hrtime.bigint() / 1000n);
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${name}: no profile written`);
    const byPlace = timeByPlace(JSON.parse(readFileSync(join(dir, file), 'utf8')), seconds * 1000, result.requests.total, loadEndedUs);
    return { byPlace, rps: result.requests.average };
  } finally {
    server.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const version of versions) {
  const columns = Object.keys(SERVERS).filter((name) => name !== 'endpoint alone' || version === '0.1.0');
  const figures = [];
  for (const name of columns) figures.push(await profiled(version, name));
  const busy = (byPlace) => [...byPlace].filter(([place]) => place !== '(idle)').reduce((sum, [, us]) => sum + us, 0);
  const places = [...new Set(figures.flatMap(({ byPlace }) => [...byPlace.keys()]))]
    .filter((place) => place !== '(idle)' && figures.some(({ byPlace }) => (byPlace.get(place) ?? 0) >= 1))
    .sort((a, b) => (figures.at(-1).byPlace.get(b) ?? 0) - (figures.at(-1).byPlace.get(a) ?? 0));
  const row = (label, values) => label.padEnd(26) + values.map((v) => v.padStart(22)).join('');
  const lines = [
    `${version} request/response, 32 connections, ${seconds} s after ${WARM_UP_SECONDS} s of warm-up${onCpu1().length ? ', servers on CPU 1' : ''}`,
    'self time a request in µs, profiled (larger than unprofiled; compare columns)',
    '',
    row('', columns),
    row(
      'req/s (profiled)',
      figures.map(({ rps }) => rps.toFixed(0)),
    ),
    row(
      'busy',
      figures.map(({ byPlace }) => busy(byPlace).toFixed(1)),
    ),
    ...places.map((place) =>
      row(
        place,
        figures.map(({ byPlace }) => (byPlace.get(place) ?? 0).toFixed(1)),
      ),
    ),
  ];
  console.log(`${lines.join('\n')}\n`);
  if (args.includes('--write')) writeFileSync(`${here}/bench/profiles/where-time-goes-${version}.txt`, `${lines.join('\n')}\n`);
}
