// create-a2a-agent as a user runs it (the built CLI, in a temporary folder), and what it writes.
// The generated projects' own commands (npm install, test, start) run in test/packaging.test.ts,
// from the packed tarballs.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from 'a2a-testing';
import { agentNameProblem, defaultGrpcPortFor, defaultPortFor, titleOf } from '../src/names.js';
import { planProject, THIRD_PARTY_VERSIONS } from '../src/scaffold.js';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..', '..');
const cli = join(root, 'packages/create-a2a-agent/dist/cli.js');
const work = mkdtempSync(join(tmpdir(), 'create-a2a-agent-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const create = (args: string[], cwd = work) => runCommand(process.execPath, [cli, ...args], { cwd, timeoutMs: 30_000 });

describe('names', () => {
  test.each(['my-agent', 'weather', 'a2', 'x-1-y'])('%s is a name', (name) => {
    expect(agentNameProblem(name)).toBeUndefined();
  });

  test.each(['My-Agent', '1agent', '-agent', 'agent-', 'my--agent', 'my_agent', 'my agent', '@scope/agent', 'a'.repeat(51), 'http', ''])(
    '%j is refused with a reason',
    (name) => {
      expect(agentNameProblem(name)).toMatch(/name/);
    },
  );

  test('the card name and the default port come from the name; the port stays the same for the same name', () => {
    expect(titleOf('weather-agent')).toBe('Weather Agent');
    expect(defaultPortFor('weather-agent')).toBe(defaultPortFor('weather-agent'));
    const ports = ['a', 'b', 'weather-agent', 'my-agent', 'x'.repeat(50)].map(defaultPortFor);
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(41300);
    for (const port of ports) expect(port).toBeLessThan(42000);
    expect(new Set(ports).size).toBe(ports.length);
    // Its image's gRPC port likewise, clear of the samples' 50051–50053.
    const grpcPorts = ['a', 'b', 'weather-agent', 'my-agent', 'x'.repeat(50)].map(defaultGrpcPortFor);
    for (const port of grpcPorts) expect([port >= 50100, port < 50800]).toEqual([true, true]);
    expect(defaultGrpcPortFor('weather-agent')).toBe(defaultGrpcPortFor('weather-agent'));
    expect(new Set(grpcPorts).size).toBe(grpcPorts.length);
  });
});

describe('the create-a2a-agent command', () => {
  test('writes a project named after its folder: card, log name, port and Redis prefix', async () => {
    const run = await create(['projects/trip-planner', '--port', '45000', '--grpc-port', '45001']);
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toContain(
      'Created Trip Planner in projects/trip-planner from the echo template: port 45000 (gRPC 45001 in its image)',
    );
    const dir = join(work, 'projects/trip-planner');
    expect(readdirSync(dir).sort()).toEqual(
      [
        '.dockerignore',
        '.gitignore',
        'Dockerfile',
        'README.md',
        'jest.config.js',
        'package.json',
        'src',
        'test',
        'tsconfig.build.json',
        'tsconfig.json',
      ].sort(),
    );
    expect(readFileSync(join(dir, 'src/agent.ts'), 'utf8')).toMatch(/^ {2}name: 'Trip Planner',$/m);
    expect(readFileSync(join(dir, 'src/server.ts'), 'utf8')).toContain(
      "const agent = { name: 'trip-planner', port: 45000, redisPrefix: 'a2a:trip-planner:' } as const;",
    );
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(manifest.name).toBe('trip-planner');
    expect(manifest.dependencies).toMatchObject({ 'a2a-express': '^0.1.0', 'a2a-types': '^0.1.0' });
    expect(Object.keys(manifest.scripts).sort()).toEqual(['build', 'prestart', 'start', 'test']);
    const dockerfile = readFileSync(join(dir, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^EXPOSE 45000 45001$/m);
    expect(dockerfile).toMatch(/PORT=45000/);
    expect(dockerfile).toMatch(/A2A_GRPC_PORT=45001/);
    expect(readFileSync(join(dir, 'test/agent.test.ts'), 'utf8')).toContain("name: 'Trip Planner'");
  });

  test('the currency template brings the whole currency agent, with its own identity', async () => {
    const run = await create(['fx-desk', '--template', 'currency', '--redis-prefix', 'fx:']);
    expect(run.status).toBe(0);
    const sources = readdirSync(join(work, 'fx-desk/src')).sort();
    expect(sources).toEqual(readdirSync(join(root, 'apps/currency-agent/src')).sort());
    expect(readFileSync(join(work, 'fx-desk/src/server.ts'), 'utf8')).toContain(
      `const agent = { name: 'fx-desk', port: ${defaultPortFor('fx-desk')}, redisPrefix: 'fx:' } as const;`,
    );
    expect(readFileSync(join(work, 'fx-desk/src/agent.ts'), 'utf8')).toMatch(/^ {2}name: 'Fx Desk',$/m);
    // Its LLM settings and model choice are a2a-ai's (shared with the host agent): it depends on it.
    const manifest = JSON.parse(readFileSync(join(work, 'fx-desk/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies).toMatchObject({ 'a2a-ai': '^0.1.0', 'a2a-express': '^0.1.0', ai: expect.any(String) });
  });

  test.each([
    [['Bad_Name'], /"Bad_Name" cannot name an agent/],
    [['net'], /built-in module/],
    [['ok-name', '--port', '70000'], /--port must be a whole number from 1 to 65535/],
    [['ok-name', '--grpc-port', 'x'], /--grpc-port must be a whole number from 1 to 65535/],
    [['ok-name', '--redis-prefix', 'a b'], /--redis-prefix may hold/],
  ])('bad input %j: a clear message, exit 1, nothing written', async (args, message) => {
    const before = readdirSync(work).sort();
    const run = await create(args);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
    expect(readdirSync(work).sort()).toEqual(before);
  });

  test('a folder that exists and is not empty is left as it was', async () => {
    mkdirSync(join(work, 'taken-agent'));
    writeFileSync(join(work, 'taken-agent/notes.txt'), 'mine');
    const run = await create(['taken-agent']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/taken-agent already exists and is not empty; choose another name or folder \(nothing was written\)/);
    expect(readdirSync(join(work, 'taken-agent'))).toEqual(['notes.txt']);
  });

  test('an empty folder that exists is used', async () => {
    mkdirSync(join(work, 'empty-agent'));
    expect((await create(['empty-agent'])).status).toBe(0);
    expect(existsSync(join(work, 'empty-agent/src/server.ts'))).toBe(true);
  });

  test.each([[[]], [['a', 'b']], [['x', '--template', 'weather']], [['x', '--colour']]])(
    'usage mistakes %j: exit 2 with a hint',
    async (args) => {
      const run = await create(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/create-a2a-agent --help/);
    },
  );

  test('--help explains the options', async () => {
    const run = await create(['--help']);
    expect(run.status).toBe(0);
    for (const option of ['--template', '--port', '--grpc-port', '--redis-prefix', '--kit', '--workspace'])
      expect(run.stdout).toContain(option);
  });

  test('--kit depends on the tarballs of that folder, and says how to make them when they are missing', async () => {
    const kit = join(work, 'kit');
    mkdirSync(kit);
    const missing = await create(['kit-agent', '--kit', kit]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/--kit: no a2a-express-<version>\.tgz in .*pnpm run pack/);
    expect(existsSync(join(work, 'kit-agent'))).toBe(false);
    for (const file of ['a2a-express-0.1.0.tgz', 'a2a-types-0.1.0.tgz']) writeFileSync(join(kit, file), '');
    expect((await create(['kit-agent', '--kit', kit])).status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(work, 'kit-agent/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies['a2a-express']).toBe(`file:${join(kit, 'a2a-express-0.1.0.tgz')}`);
  });
});

describe('--workspace, for a new app in this repository', () => {
  test('writes apps/<name> on the workspace packages, with its own port, log name and Redis prefix', async () => {
    const repo = join(work, 'repo');
    mkdirSync(join(repo, 'apps'), { recursive: true });
    writeFileSync(join(repo, 'pnpm-workspace.yaml'), 'packages:\n  - apps/*\n');
    const run = await create(['ledger-agent', '--workspace'], join(repo, 'apps'));
    expect(run).toMatchObject({ status: 0, stderr: '' });
    const dir = join(repo, 'apps/ledger-agent');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(manifest.dependencies).toMatchObject({ 'a2a-express': 'workspace:*', 'a2a-types': 'workspace:*' });
    expect(manifest.scripts).toEqual({ start: 'node dist/server.js' });
    expect(readdirSync(dir).sort()).toEqual(['Dockerfile', 'README.md', 'package.json', 'src', 'test', 'tsconfig.json']);
    expect(readFileSync(join(dir, 'src/server.ts'), 'utf8')).toContain(
      `const agent = { name: 'ledger-agent', port: ${defaultPortFor('ledger-agent')}, redisPrefix: 'a2a:ledger-agent:' } as const;`,
    );
    const tsconfig = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as { extends: string; references: { path: string }[] };
    // The paths it names are those of this repository, relative to apps/<name>.
    for (const path of [tsconfig.extends, ...tsconfig.references.map((r) => r.path)])
      expect(existsSync(join(root, 'apps/ledger-agent', path))).toBe(true);
  });

  test.each(['../../../escaped-agent', '../escaped-agent', 'nested/escaped-agent', '..'])(
    'a path instead of a name (%s) is refused and nothing is written outside apps/',
    async (path) => {
      const repo = join(work, 'repo-escape');
      mkdirSync(join(repo, 'apps'), { recursive: true });
      writeFileSync(join(repo, 'pnpm-workspace.yaml'), 'packages:\n  - apps/*\n');
      const before = readdirSync(work).sort();
      const run = await create([path, '--workspace'], join(repo, 'apps'));
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/--workspace takes the new app's name/);
      expect(readdirSync(work).sort()).toEqual(before);
      expect(readdirSync(join(repo, 'apps'))).toEqual([]);
      expect(existsSync(join(repo, 'escaped-agent'))).toBe(false);
    },
  );

  test('outside a workspace it says so and writes nothing', async () => {
    const run = await create(['lost-agent', '--workspace'], tmpdir());
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--workspace is for the kit's own repository/);
    expect(existsSync(join(tmpdir(), 'apps/lost-agent'))).toBe(false);
  });

  test.each([
    ['echo-agent', 41241, 50051],
    ['currency-agent', 10000, 50052],
  ])("the sample %s is what --workspace makes from its own template: its Dockerfile is the template's", (app, port, grpcPort) => {
    const template = app.replace('-agent', '') as 'echo' | 'currency';
    const files = planProject({ name: app, template, port, grpcPort, layout: 'workspace' });
    expect(files.get('Dockerfile')).toBe(readFileSync(join(root, 'apps', app, 'Dockerfile'), 'utf8'));
    const sample = JSON.parse(readFileSync(join(root, 'apps', app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const planned = JSON.parse(files.get('package.json')!) as { dependencies: Record<string, string> };
    expect(Object.keys(planned.dependencies).sort()).toEqual(Object.keys(sample.dependencies).sort());
  });
});

test('a new project starts from the versions this repository builds and tests with', () => {
  // The tools from the root's devDependencies, the runtime from a sample agent's dependencies.
  const read = (path: string) =>
    JSON.parse(readFileSync(join(root, path), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const used = {
    ...read('package.json').devDependencies,
    ...read('apps/echo-agent/package.json').dependencies,
    ...read('apps/currency-agent/package.json').dependencies,
  };
  for (const [name, version] of Object.entries(THIRD_PARTY_VERSIONS)) {
    if (name === 'ioredis') continue; // the kit's peer range: a new project may use any 5.x from 5.4
    expect([name, version]).toEqual([name, used[name]]);
  }
});
