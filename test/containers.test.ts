// No Docker engine runs where these tests run, so they check what can be checked without one:
// the compose file, the Dockerfiles, and — for each image — that its build's deploy step and
// its CMD, run here exactly as written, start the agent, and that its HEALTHCHECK passes.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { appendOnlyFileWritten, listen, pnpmCommand, rpc, spawnAgent, startOwnRedis } from 'a2a-testing';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
interface ComposeService {
  build?: { context: string; dockerfile: string };
  image?: string;
  profiles?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
}
// `merge: true` applies the file's `<<: *anchor` merge keys, as docker compose does.
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};
/** The agents `docker compose up` starts: the services of no profile built here, one per sample agent. */
const agents = Object.fromEntries(Object.entries(compose.services).filter(([, s]) => !s.profiles && s.build)) as Record<
  string,
  Required<ComposeService>
>;
/** What it starts beside them to show what they do: services of no profile run from an image. */
const observers = Object.entries(compose.services).filter(([, s]) => !s.profiles && !s.build);
const replicaServices = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('replicas'));
/** The agents that the "replicas" profile runs twice (`<agent>-1`, `<agent>-2`): not necessarily every agent. */
const replicated = [
  ...new Set(
    replicaServices
      .map(([name]) => name)
      .filter((name) => /-\d$/.test(name))
      .map((name) => name.replace(/-\d$/, '')),
  ),
].sort();
const run = promisify(execFile);

/** Reads a Dockerfile into the instructions of its final stage, and the whole text. */
function dockerfile(path: string) {
  const text = readFileSync(path, 'utf8').replace(/\\\n/g, ' ');
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const finalStage = lines.slice(lines.map((l) => l.startsWith('FROM ')).lastIndexOf(true));
  const all = (instruction: string) =>
    finalStage.filter((l) => l.startsWith(`${instruction} `)).map((l) => l.slice(instruction.length + 1).trim());
  const env = Object.fromEntries(all('ENV').flatMap((l) => [...l.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
  return { lines, text, finalStage, all, env, stages: lines.filter((l) => l.startsWith('FROM ')).length };
}

/** The port an app listens on unless PORT is set: its identity line, `const agent = { ..., port: N, ... }`. */
function defaultPort(app: string): number {
  const source = readFileSync(join(root, 'apps', app, 'src/server.ts'), 'utf8');
  const match = /^const agent = \{[^}]*\bport: (\d+),/m.exec(source);
  if (!match) throw new Error(`no default port in apps/${app}/src/server.ts`);
  return Number(match[1]);
}

describe('the start command', () => {
  test('runs the agents side by side, so one that cannot start (its port taken) does not take the others down', () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toMatch(/pnpm --parallel --no-bail --filter "\.\/apps\/\*" start/);
  });
});

describe('docker-compose.yml', () => {
  test('runs agents of this repository: each service of no profile is an app under apps/, built from its own Dockerfile, or Jaeger or Prometheus', () => {
    expect(Object.keys(agents).length).toBeGreaterThan(0);
    for (const [name, service] of Object.entries(agents)) {
      expect([name, service.build.dockerfile]).toEqual([name, `apps/${name}/Dockerfile`]);
    }
    expect(observers.map(([name, service]) => [name, service.image!.split(':')[0]])).toEqual([
      ['jaeger', 'jaegertracing/all-in-one'],
      ['prometheus', 'prom/prometheus'],
    ]);
  });

  test("each agent sends its traces to Jaeger under its own name, and Prometheus scrapes each agent's /metrics", () => {
    for (const [name, service] of Object.entries(agents)) {
      expect([name, service.environment.OTEL_EXPORTER_OTLP_ENDPOINT]).toEqual([name, '${OTEL_EXPORTER_OTLP_ENDPOINT:-http://jaeger:4318}']);
      expect([name, service.environment.OTEL_SERVICE_NAME]).toEqual([name, name]);
    }
    const [source, target] = compose.services.prometheus!.volumes![0]!.split(':');
    expect(target).toBe('/etc/prometheus/prometheus.yml');
    const config = parse(readFileSync(join(root, source!), 'utf8')) as {
      scrape_configs: { job_name: string; metrics_path: string; static_configs: { targets: string[] }[] }[];
    };
    // The metrics port every agent gets: apart from the agent's, so that Prometheus needs none of
    // the agents' credentials.
    const metricsPorts = new Set(
      Object.values(agents).map((service) => /^\$\{METRICS_PORT:-(\d+)\}$/.exec(service.environment.METRICS_PORT ?? '')?.[1]),
    );
    expect(metricsPorts.size).toBe(1);
    const [metricsPort] = [...metricsPorts];
    expect(metricsPort).toMatch(/^\d+$/);
    for (const name of Object.keys(agents)) expect([name, metricsPort]).not.toEqual([name, String(defaultPort(name))]);
    const agentsJob = config.scrape_configs.find((job) => job.job_name === 'agents')!;
    expect(agentsJob.metrics_path).toBe('/metrics');
    expect(agentsJob.static_configs.flatMap((c) => c.targets).sort()).toEqual(
      Object.keys(agents)
        .map((name) => `${name}:${metricsPort}`)
        .sort(),
    );
    const replicasJob = config.scrape_configs.find((job) => job.job_name === 'replicas')!;
    expect(replicasJob.static_configs.flatMap((c) => c.targets).sort()).toEqual(
      replicated.flatMap((agent) => [1, 2].map((n) => `${agent}-${n}:${metricsPort}`)).sort(),
    );
  });

  test.each([[[]], [['--profile', 'replicas']], [['--profile', 'postgres']]])(
    'is valid for docker-compose %j (where the tool is installed)',
    (profile) => {
      const check = spawnSync('docker-compose', [...profile, 'config', '--quiet'], { cwd: root, encoding: 'utf8' });
      if (check.error) return; // not installed on this machine: .ci/run installs it where it can
      expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
    },
  );

  test.each(Object.entries(agents))(
    "%s: build context and Dockerfile exist; port is the app's default, and gRPC has one of its own, published",
    (name, service) => {
      expect(existsSync(join(root, service.build.context, 'package.json'))).toBe(true);
      expect(existsSync(join(root, service.build.context, service.build.dockerfile))).toBe(true);
      const port = defaultPort(name);
      const file = dockerfile(join(root, service.build.context, service.build.dockerfile));
      // The image serves gRPC unless told otherwise; compose says the same port.
      const grpcPort = file.env.A2A_GRPC_PORT;
      expect(grpcPort).toMatch(/^\d+$/);
      expect(service.environment.A2A_GRPC_PORT).toBe(grpcPort);
      expect(service.ports).toEqual([`${port}:${port}`, `${grpcPort}:${grpcPort}`]);
      expect(service.environment.PORT).toBe(String(port));
      expect(file.all('EXPOSE')).toEqual([`${port} ${grpcPort}`]);
      expect(file.env.PORT).toBe(String(port));
    },
  );

  test("no two agents' ports meet on the host", () => {
    const published = Object.values(agents).flatMap((service) => service.ports ?? []);
    expect(new Set(published).size).toBe(published.length);
  });
});

describe('docker-compose.yml, profile "replicas"', () => {
  test('runs Redis, two replicas of some agents built as the agent is, and a load balancer', () => {
    expect(replicated.length).toBeGreaterThan(0);
    for (const agent of replicated) expect([agent, agent in agents]).toEqual([agent, true]);
    expect(replicaServices.map(([name]) => name).sort()).toEqual(
      [...replicated.flatMap((agent) => [`${agent}-1`, `${agent}-2`]), 'load-balancer', 'redis'].sort(),
    );
    for (const [name, service] of replicaServices.filter(([n]) => /-agent-\d$/.test(n))) {
      const agent = name.replace(/-\d$/, '');
      expect(service.build).toEqual(agents[agent]!.build);
      expect(service.ports).toBeUndefined(); // reached through the load balancer only
      expect(service.environment).toMatchObject({ A2A_REDIS_URL: 'redis://redis:6379', PORT: String(defaultPort(agent)) });
      // Every replica of one agent gets the same signing key variable.
      expect(service.environment!.A2A_PUSH_SIGNING_KEY).toBe('${A2A_PUSH_SIGNING_KEY:-}');
    }
  });

  test('every service of an agent gets the same settings: a replica adds only the shared store and its gRPC address', () => {
    for (const [name, service] of replicaServices.filter(([n]) => /-agent-\d$/.test(n))) {
      const agent = name.replace(/-\d$/, '');
      const { A2A_REDIS_URL, A2A_REDIS_LEASE_MS, A2A_GRPC_ADDRESS, ...settings } = service.environment!;
      expect([name, A2A_REDIS_URL, A2A_REDIS_LEASE_MS]).toEqual([name, 'redis://redis:6379', '${A2A_REDIS_LEASE_MS:-15000}']);
      // And where clients reach their gRPC: the load balancer's port for it (checked below).
      expect([name, A2A_GRPC_ADDRESS]).toEqual([name, expect.stringMatching(/^\$\{\w+:-localhost:\d+\}$/)]);
      expect([name, settings]).toEqual([name, agents[agent]!.environment]);
    }
    for (const [name, service] of Object.entries(agents)) {
      for (const key of ['A2A_API_KEYS', 'A2A_JWKS_URL', 'A2A_JWT_ISSUER', 'A2A_JWT_AUDIENCE']) {
        expect([name, service.environment[key]]).toEqual([name, `\${${key}:-}`]);
      }
    }
    expect(agents['currency-agent']!.environment).toHaveProperty('LLM_API_KEY', '${LLM_API_KEY:-}');
  });

  test('with A2A_API_KEYS set, docker-compose config gives the key to every agent service, replicas and the one on PostgreSQL included', async () => {
    const check = spawnSync('docker-compose', ['--profile', 'replicas', '--profile', 'postgres', 'config'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, A2A_API_KEYS: 'compose-key=ops' },
    });
    if (check.error) return; // not installed on this machine: the test above checks the file itself
    const resolved = parse(check.stdout) as { services: Record<string, ComposeService> };
    const agentServices = Object.entries(resolved.services).filter(([, service]) => service.build !== undefined);
    expect(agentServices.map(([name]) => name).sort()).toEqual(
      [...Object.keys(agents), ...replicated.flatMap((agent) => [`${agent}-1`, `${agent}-2`]), 'echo-agent-postgres'].sort(),
    );
    for (const [name, service] of agentServices) expect([name, service.environment!.A2A_API_KEYS]).toEqual([name, 'compose-key=ops']);
  });

  test('Redis keeps its data in a named volume; its command, run here as written, keeps a task through a restart and a crash', async () => {
    const redis = compose.services.redis!;
    expect(redis.volumes).toEqual(['redis-data:/data']); // the image's working directory, where Redis writes
    expect(compose.volumes).toHaveProperty('redis-data');
    const [program, ...settings] = redis.command!;
    expect(program).toBe('redis-server');
    const noPersistence = ['--save', '', '--appendonly', 'no'];
    // What a client reads after each failure: the compose settings, and for contrast the
    // settings Redis had before (nothing on disk).
    const outcomes: Record<string, unknown> = {};
    const sent: Record<string, unknown> = {};
    for (const [name, persistence, failure] of [
      ['compose, restart', settings, 'restart'],
      ['compose, crash', settings, 'crash'],
      ['no persistence, restart', noPersistence, 'restart'],
    ] as const) {
      const own = await startOwnRedis({ persistence: [...persistence] });
      const agent = await spawnAgent('node', [join(root, 'apps/echo-agent/dist/server.js')], {
        env: { HOST: '127.0.0.1', PORT: '0', A2A_REDIS_URL: own.url },
      });
      try {
        const answer = await rpc(agent.url, 'tasks/send', {
          id: 'kept',
          message: { role: 'user', parts: [{ type: 'text', text: 'keep me' }] },
        });
        expect(answer.result?.status.state).toBe('completed');
        sent[name] = answer.result;
        if (failure === 'restart') {
          await own.stop(); // SIGTERM: Redis writes and syncs what it holds, then exits
        } else {
          // A crash (SIGKILL) loses what Redis had not yet written to its file: at most about
          // two seconds of writes (appendfsync everysec on a busy disk). Kill it once written.
          await appendOnlyFileWritten(own.url);
          await own.kill();
        }
        await own.start();
        // The agent reconnects by itself; until it has, it answers -32011.
        let read = await rpc(agent.url, 'tasks/get', { id: 'kept' });
        for (let attempt = 0; attempt < 50 && read.error?.code === -32011; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          read = await rpc(agent.url, 'tasks/get', { id: 'kept' });
        }
        outcomes[name] = read.error?.code ?? read.result;
      } finally {
        await agent.stop();
        await own.dispose();
      }
    }
    expect(outcomes).toEqual({
      'compose, restart': sent['compose, restart'],
      'compose, crash': sent['compose, crash'],
      'no persistence, restart': -32001,
    });
  }, 60_000);

  test("the load balancer's nginx.conf sends each port to both replicas of one agent, unbuffered; gRPC over HTTP/2", () => {
    const lb = compose.services['load-balancer']!;
    const [source, target] = lb.volumes![0]!.split(':');
    expect(target).toBe('/etc/nginx/nginx.conf');
    const conf = readFileSync(join(root, source!), 'utf8');
    const upstreams = Object.fromEntries(
      [...conf.matchAll(/upstream (\w+) \{([^}]*)\}/g)].map((m) => [
        m[1]!,
        [...m[2]!.matchAll(/server ([\w-]+):(\d+);/g)].map((s) => `${s[1]}:${s[2]}`),
      ]),
    );
    // Two upstreams per agent, named after it, holding its two replicas: on the agent's port, and
    // (`_grpc`) on its image's gRPC port.
    const grpcPortOf = (agent: string) =>
      dockerfile(join(root, agents[agent]!.build.context, agents[agent]!.build.dockerfile)).env.A2A_GRPC_PORT;
    expect(upstreams).toEqual(
      Object.fromEntries(
        replicated.flatMap((agent) => [
          [agent.replace(/-/g, '_'), [1, 2].map((i) => `${agent}-${i}:${defaultPort(agent)}`)],
          [`${agent.replace(/-/g, '_')}_grpc`, [1, 2].map((i) => `${agent}-${i}:${grpcPortOf(agent)}`)],
        ]),
      ),
    );
    // Each upstream served on one port of its own, and each such port published: HTTP proxied,
    // gRPC passed over HTTP/2.
    const servers = [
      ...[...conf.matchAll(/listen (\d+);\s*location \/ \{ proxy_pass http:\/\/(\w+); \}/g)],
      ...[...conf.matchAll(/listen (\d+);\s*http2 on;\s*location \/ \{ grpc_pass grpc:\/\/(\w+);[^}]*\}/g)],
    ].map((m) => ({ port: m[1]!, upstream: m[2]! }));
    expect(servers.map((server) => server.upstream).sort()).toEqual(Object.keys(upstreams).sort());
    expect(lb.ports!.slice().sort()).toEqual(servers.map((server) => `${server.port}:${server.port}`).sort());
    expect(conf).toMatch(/proxy_buffering off;/);
    // What a card fetched through the balancer lists for each agent's gRPC is the balancer's gRPC port.
    for (const agent of replicated) {
      const grpcServer = servers.find((server) => server.upstream === `${agent.replace(/-/g, '_')}_grpc`)!;
      const address = compose.services[`${agent}-1`]!.environment!.A2A_GRPC_ADDRESS;
      expect([agent, address]).toEqual([agent, expect.stringMatching(new RegExp(`:-localhost:${grpcServer.port}\\}$`))]);
    }
  });
});

describe('docker-compose.yml, profile "postgres"', () => {
  const postgresServices = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('postgres'));

  test('runs PostgreSQL with a volume and a health check, and an echo agent on it that waits for it, with the echo agent settings', () => {
    expect(postgresServices.map(([name]) => name).sort()).toEqual(['echo-agent-postgres', 'postgres']);
    const database = compose.services.postgres!;
    expect(database.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    expect(compose.volumes).toHaveProperty('postgres-data');
    const { healthcheck, environment } = database as ComposeService & { healthcheck: { test: string[] } };
    expect(healthcheck.test).toEqual(['CMD', 'pg_isready', '-U', environment!.POSTGRES_USER, '-d', environment!.POSTGRES_DB]);

    const agent = compose.services['echo-agent-postgres']!;
    expect(agent.build).toEqual(agents['echo-agent']!.build);
    expect(agent.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    const { A2A_STORE, DATABASE_URL, A2A_GRPC_ADDRESS, ...settings } = agent.environment!;
    expect(settings).toEqual(agents['echo-agent']!.environment);
    expect(A2A_STORE).toBe('postgres');
    // The database the compose file runs, as its user, on its port.
    const databaseUrl = new URL(DATABASE_URL!.replace('${POSTGRES_PASSWORD:-a2a}', 'secret'));
    expect([databaseUrl.protocol, databaseUrl.username, databaseUrl.hostname, databaseUrl.port, databaseUrl.pathname]).toEqual([
      'postgres:',
      environment!.POSTGRES_USER,
      'postgres',
      '5432',
      `/${environment!.POSTGRES_DB}`,
    ]);
    // Published beside the agent without a profile: other host ports, the card's gRPC address the host's.
    const [http, grpc] = agent.ports!;
    expect(http).toBe(`41242:${defaultPort('echo-agent')}`);
    expect(A2A_GRPC_ADDRESS).toBe(`\${ECHO_POSTGRES_GRPC_ADDRESS:-localhost:${grpc!.split(':')[0]}}`);
    expect(grpc!.split(':')[1]).toBe(agents['echo-agent']!.environment.A2A_GRPC_PORT);
  });
});

/** Folders the image tests made, removed after them (made in the tests, so a filtered run makes none). */
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

describe.each(Object.keys(agents))('the %s image', (name) => {
  const file = dockerfile(join(root, agents[name]!.build.context, agents[name]!.build.dockerfile));

  test('is a multi-stage build that runs as a non-root user with a health check on readiness', () => {
    expect(file.stages).toBe(2);
    expect(file.all('USER')).toEqual(['node']);
    expect(file.all('HEALTHCHECK')[0]).toContain('/readyz');
    expect(file.env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
  });

  // The four images' tests run at once: each deploy is mostly pnpm linking files and waiting on the
  // disk, and one after the other they were some fifty seconds of this file.
  test.concurrent('its deploy step and CMD, run here as written, start the agent, its HEALTHCHECK passes, and its traces reach a collector', async () => {
    // The build stage's `pnpm --filter <app> deploy --prod ... /app`, into a temporary folder.
    const deploy = /pnpm (--filter \S+ deploy .*) \/app/.exec(file.text)?.[1];
    expect(deploy).toBeDefined();
    const workdir = mkdtempSync(join(tmpdir(), `${name}-image-`));
    // pnpm 10's deploy also links the deployed app's bins into <app folder>/<the target's path
    // relative to the workspace root>, which is inside this repository: remove that copy too.
    let strayBins = join(root, 'apps', name, relative(root, workdir));
    while (!existsSync(dirname(strayBins))) strayBins = dirname(strayBins); // the first folder it makes
    const [command, prefix] = pnpmCommand();
    try {
      await run(command, [...prefix, ...deploy!.split(/\s+/), workdir], { cwd: root, timeout: 120_000 });
    } finally {
      if (!relative(root, strayBins).startsWith('..')) rmSync(strayBins, { recursive: true, force: true });
    }
    cleanups.push(() => rmSync(workdir, { recursive: true, force: true }));
    expect(existsSync(join(workdir, 'node_modules', 'typescript'))).toBe(false); // production dependencies only
    const cmd = JSON.parse(file.all('CMD')[0]!) as string[];
    // An OTLP/HTTP collector stand-in: the image has what compose's Jaeger needs of it.
    const traces: string[] = [];
    const collector = await listen((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.url === '/v1/traces') traces.push(body);
        res.end('{}');
      });
    });
    cleanups.push(() => void collector.close());
    const agent = await spawnAgent(cmd[0]!, cmd.slice(1), {
      cwd: workdir,
      // The image's environment, but listening on loopback only, on free ports, and offline.
      env: {
        ...file.env,
        HOST: '127.0.0.1',
        PORT: '0',
        A2A_GRPC_PORT: '0',
        FRANKFURTER_URL: 'http://127.0.0.1:9',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: name,
      },
    });
    try {
      await rpc(agent.url, 'tasks/get', { id: 'no-such-task' });
      const card = (await (await fetch(`${agent.url}/.well-known/agent.json`)).json()) as { name: string };
      expect(card.name).toMatch(/Agent$/);
      // The deployed copy has what gRPC needs (its optional peers), and serves it.
      const card10 = (await (await fetch(`${agent.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as {
        supportedInterfaces: { url: string; protocolBinding: string }[];
      };
      expect(card10.supportedInterfaces.find((entry) => entry.protocolBinding === 'GRPC')?.url).toMatch(/^127\.0\.0\.1:\d+$/);
      const health = JSON.parse(
        /HEALTHCHECK .*CMD (\[.*\])$/.exec(file.all('HEALTHCHECK')[0]!.replace(/^/, 'HEALTHCHECK '))![1]!,
      ) as string[];
      const probe = spawnSync(health[0]!, health.slice(1), { env: { ...process.env, PORT: new URL(agent.url).port }, timeout: 10_000 });
      expect(probe.status).toBe(0);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
    // Sent at the latest when the agent stopped.
    expect(traces.join('')).toContain(`"${name}"`);
    expect(traces.join('')).toContain('"name":"tasks/get"');
    // pnpm deploy alone takes 16 to 20 s on two cores busy with the other suites (jest's default
    // budget of 20 s was too little in a full run); the deploy has 120 s of its own.
  }, 180_000);
});
