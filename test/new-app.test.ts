// The README's steps for a new agent under apps/, taken in a copy of this repository: the root
// script writes the app, pnpm links it into the workspace, the build and the test command
// pick it up with no list to edit, it starts on its own port with its own log name, and the
// repository's compose checks still hold (no test names the apps or their ports).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pnpmCommand, runPnpm, spawnAgent, succeeded } from 'a2a-testing';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const copy = mkdtempSync(join(tmpdir(), 'a2a-new-app-'));
const LONG = 240_000;
afterAll(() => rmSync(copy, { recursive: true, force: true }));

beforeAll(() => {
  // The repository as a clone has it, plus the builds of its packages and apps and the generated sources
  // of a2a-types and the ITK agent (with the fingerprint that lets its generator skip buf), so that only the
  // new app is compiled here: tsc -b finds the rest up to date.
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of tracked) if (existsSync(join(root, file))) cpSync(join(root, file), join(copy, file), { preserveTimestamps: true });
  const built = [
    'packages/a2a-types/src/v10/grpc/gen',
    'packages/a2a-types/src/v03/grpc/gen',
    'packages/a2a-types/src/schemas',
    'packages/a2a-types/src/compiled',
    'apps/itk-agent/src/gen',
  ];
  for (const workspace of ['packages', 'apps'])
    for (const dir of readdirSync(join(root, workspace)))
      built.push(`${workspace}/${dir}/dist`, `${workspace}/${dir}/tsconfig.tsbuildinfo`);
  for (const path of built)
    if (existsSync(join(root, path))) cpSync(join(root, path), join(copy, path), { recursive: true, preserveTimestamps: true });
});

test(
  'create-agent, install, build, test and start: the new app runs beside the samples with its own identity',
  async () => {
    const created = succeeded(await runPnpm(['run', '--silent', 'create-agent', 'ledger-agent', '--port', '41999'], { cwd: copy }));
    expect(created.stdout).toContain('Created Ledger Agent in apps/ledger-agent from the echo template: port 41999');
    // The README's `pnpm install`. CI=true makes pnpm keep the lockfile frozen, and a new app is
    // a new lockfile entry: on a developer's machine the plain command updates it.
    succeeded(await runPnpm(['install', '--prefer-offline', '--no-frozen-lockfile'], { cwd: copy, timeoutMs: 200_000 }));
    succeeded(await runPnpm(['run', 'build'], { cwd: copy, timeoutMs: 200_000 }));
    expect(existsSync(join(copy, 'apps/ledger-agent/dist/server.js'))).toBe(true);

    // The root test command's jest finds the new app's test, which passes.
    const tested = succeeded(await runPnpm(['--silent', 'jest', 'apps/ledger-agent'], { cwd: copy }));
    expect(tested.stderr).toMatch(/Tests:\s+4 passed, 4 total/);

    // Started as `pnpm start` starts each app: its package's start script.
    const [command, prefix] = pnpmCommand();
    const agent = await spawnAgent(command, [...prefix, '--filter', 'ledger-agent', 'start'], {
      cwd: copy,
      env: { PORT: '0' },
      processGroup: true,
      timeoutMs: 60_000,
    });
    try {
      const card = (await (await fetch(`${agent.url}/.well-known/agent.json`)).json()) as { name: string };
      expect(card.name).toBe('Ledger Agent');
      const listening = JSON.parse(
        agent
          .output()
          .split('\n')
          .find((line) => line.includes('listening'))!,
      ) as { name: string };
      expect(listening.name).toBe('ledger-agent');
    } finally {
      await agent.stop();
    }
    expect(readFileSync(join(copy, 'apps/ledger-agent/src/server.ts'), 'utf8')).toContain(
      "const agent = { name: 'ledger-agent', port: 41999, redisPrefix: 'a2a:ledger-agent:' } as const;",
    );

    // As its README says, a service for it in docker-compose.yml, like the samples', and a target
    // in Prometheus' config. The repository's compose checks read the apps and their ports from
    // there: they hold with it.
    const composeFile = join(copy, 'docker-compose.yml');
    // The gRPC port its image was given (derived from its name), which compose publishes too.
    const grpcPort = /A2A_GRPC_PORT=(\d+)/.exec(readFileSync(join(copy, 'apps/ledger-agent/Dockerfile'), 'utf8'))![1];
    const service = [
      '  ledger-agent:',
      '    build:',
      '      context: .',
      '      dockerfile: apps/ledger-agent/Dockerfile',
      '    ports:',
      '      - "41999:41999"',
      `      - "${grpcPort}:${grpcPort}"`,
      '    environment:',
      '      <<: *agent-env',
      '      OTEL_SERVICE_NAME: ledger-agent',
      '      PORT: "41999"',
      `      A2A_GRPC_PORT: "${grpcPort}"`,
      '    restart: unless-stopped',
      '',
    ].join('\n');
    writeFileSync(
      composeFile,
      readFileSync(composeFile, 'utf8').replace(/^services:\n/m, (services) => `${services}${service}`),
    );
    const prometheusFile = join(copy, 'deploy/prometheus.yml');
    writeFileSync(
      prometheusFile,
      readFileSync(prometheusFile, 'utf8').replace('"conformance-agent:9464"]', '"conformance-agent:9464", "ledger-agent:9464"]'),
    );
    const compose = succeeded(await runPnpm(['--silent', 'jest', 'test/containers.test.ts', '-t', 'docker-compose.yml'], { cwd: copy }));
    expect(compose.stderr).toMatch(/Tests:\s+\d+ skipped, \d+ passed/);
    expect(compose.stderr).toMatch(/ledger-agent: build context and Dockerfile exist; port is the app's default/);
  },
  LONG,
);
