// The kit as a user outside this repository gets it: every public package packed as the registry
// would receive it (scripts/pack.mjs), installed with plain npm into temporary apps outside the
// workspace, and used as the README says — on Express 4 and on Express 5, from ESM, from
// CommonJS and from a strict TypeScript build; a client-only project with no Express; the `a2a`
// bin from its tarball. npm reaches the registry for express, typescript and the like.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type CommandResult, codeBlockWith, printedAddress, rpc, runCommand, spawnAgent, succeeded, type SpawnedAgent } from 'a2a-testing';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'a2a-packaging-'));
const tarballDir = join(work, 'tarballs');
let tarballs: string[] = [];

/** Time allowed for one npm install, build or start, or a test of several (milliseconds). */
const LONG = 240_000;
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * `--prefer-offline`: what npm's cache holds is taken without asking the registry whether it is
 * still the newest; what it lacks is fetched. The installs test what the tarballs need, not the
 * registry's latest patch, and each revalidation was a round trip the whole file waited on.
 */
const npmInstallFlags = ['--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'];

/** A new folder outside the workspace with its own package.json, and npm install of `specs`. */
async function app(name: string, specs: string[], manifest: Record<string, unknown> = {}): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, ...manifest }, null, 2));
  succeeded(await runCommand('npm', ['install', ...npmInstallFlags, ...specs], { cwd: dir, timeoutMs: 200_000 }));
  return dir;
}

/** The README's ten-line example, made to listen on a free loopback port and say where. */
function tenLines(): string {
  const code = codeBlockWith(readme, 'a2aRouter(async function* echo(ctx)');
  expect(code.split('\n').filter((line) => line.trim()).length).toBeLessThanOrEqual(11);
  const listen = /^app\.listen\(\d+\);$/m;
  expect(code).toMatch(listen);
  return code.replace(
    listen,
    "const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));",
  );
}

/** The same example for CommonJS: `import { a, b } from 'x'` → `const { a, b } = require('x')`. */
function asCommonJs(esm: string): string {
  return esm
    .replace(/^import (\w+) from '([^']+)';$/gm, "const $1 = require('$2');")
    .replace(/^import \{([^}]+)\} from '([^']+)';$/gm, "const {$1} = require('$2');");
}

const untyped = (ts: string) => ts.replace(/ as \{ port: number \}/g, '');

/** Starts `node <script>` in `dir` and checks it answers as the README's example says. */
async function checkEchoAgent(dir: string, script: string): Promise<void> {
  const agent = await spawnAgent(process.execPath, [script], { cwd: dir });
  try {
    await answersLikeTheExample(agent);
  } finally {
    await agent.stop();
  }
}

/** The example agent answers as the README says: it asks for input, then echoes. */
async function answersLikeTheExample(agent: SpawnedAgent): Promise<void> {
  const card = (await (await fetch(`${agent.url}/.well-known/agent.json`)).json()) as { name: string; url: string };
  expect(card).toMatchObject({ name: 'Echo', url: `${agent.url}/` });
  const message = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });
  const asked = await rpc(`${agent.url}/`, 'tasks/send', { id: 'packaged', message: message(' ') });
  expect(asked.result?.status.state).toBe('input-required');
  const echoed = await rpc(`${agent.url}/`, 'tasks/send', { id: 'packaged', message: message('from a tarball') });
  expect(echoed.result?.artifacts?.[0]?.parts).toEqual([{ type: 'text', text: 'from a tarball' }]);
  const wrong = await rpc(`${agent.url}/`, 'tasks/get', { id: 42 });
  expect(wrong.error?.code).toBe(-32602);
}

const strictNodeNext = {
  compilerOptions: {
    target: 'ES2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    skipLibCheck: false,
    noEmit: false,
    outDir: 'dist',
    types: ['node'],
  },
  include: ['src'],
};

/**
 * The npm installs of the apps below, started together once the tarballs are packed: each takes
 * 15 to 40 s, mostly waiting on npm and the registry rather than on the CPU, and one after the
 * other they were most of this file's time. The tests that use an app await its install first.
 */
const installs = new Map<string, Promise<string>>();
/** The scaffolded project, and its own `npm install` (which its test checks). */
let scaffolded: Promise<{ project: string; installed: CommandResult }>;

/** A promise awaited later: a failure is reported there, not as an unhandled rejection now. */
function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

beforeAll(async () => {
  const packed = succeeded(await runCommand(process.execPath, [join(root, 'scripts/pack.mjs'), tarballDir], { cwd: root }));
  tarballs = packed.stdout.trim().split('\n');
  for (const major of ['4', '5']) {
    const specs = [...tarballs, `express@${major}`, `@types/express@${major}`, '@types/node@20', 'typescript@5'];
    installs.set(`express${major}`, awaitedLater(app(`express${major}-app`, specs, { type: 'module' })));
  }
  const client = tarballs.filter((t) => /\/a2a-(client|types|push-receiver)-/.test(t));
  installs.set('client', awaitedLater(app('client-app', [...client, '@types/node@20', 'typescript@5'], { type: 'module' })));
  scaffolded = awaitedLater(scaffold());
}, LONG);

/** What `npm create a2a-agent@latest` runs, from the tarball instead of the registry; then the new project's `npm install`. */
async function scaffold(): Promise<{ project: string; installed: CommandResult }> {
  const parent = join(work, 'scaffolds');
  mkdirSync(parent);
  const creator = tarballs.find((t) => /\/create-a2a-agent-/.test(t))!;
  succeeded(
    await runCommand('npm', ['exec', '--yes', `--package=${creator}`, '--', 'create-a2a-agent', 'travel-desk', '--kit', tarballDir], {
      cwd: parent,
    }),
  );
  const project = join(parent, 'travel-desk');
  const installed = await runCommand('npm', ['install', ...npmInstallFlags], {
    cwd: project,
    timeoutMs: 200_000,
  });
  return { project, installed };
}

describe('the packed tarballs', () => {
  test(
    'are every public package, each with a README, a LICENSE and no workspace: versions',
    () => {
      const publicPackages = readdirSync(join(root, 'packages'))
        .map(
          (dir) =>
            JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as {
              name: string;
              version: string;
              private?: boolean;
            },
        )
        .filter((manifest) => !manifest.private)
        .map((manifest) => join(tarballDir, `${manifest.name}-${manifest.version}.tgz`));
      expect(tarballs.sort()).toEqual(publicPackages.sort());
    },
    LONG,
  );

  test.each(['a2a-types', 'a2a-express', 'a2a-client', 'a2a-push-receiver', 'create-a2a-agent', 'a2a-ai'])(
    '%s: README, LICENSE, engines, exports with types that exist, source maps that resolve',
    async (name) => {
      const tarball = tarballs.find((t) => new RegExp(`/${name}-\\d`).test(t))!;
      const dir = join(work, 'unpacked', name);
      mkdirSync(dir, { recursive: true });
      succeeded(await runCommand('tar', ['xzf', tarball, '-C', dir]));
      const pkg = join(dir, 'package');
      const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
        engines: { node: string };
        license: string;
        exports: Record<string, string | { types: string; default: string }>;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toMatch(/npm install/);
      expect(readFileSync(join(pkg, 'LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'));
      expect(manifest.license).toBe('Apache-2.0');
      // ESM only: CommonJS require() of it works from Node 20.19 and 22.12 on.
      expect(manifest.engines.node).toBe('^20.19.0 || >=22.12.0');
      expect(JSON.stringify({ ...manifest.dependencies, ...manifest.peerDependencies })).not.toMatch(/workspace:/);
      for (const [subpath, target] of Object.entries(manifest.exports)) {
        if (typeof target === 'string') {
          expect([subpath, existsSync(join(pkg, target))]).toEqual([subpath, true]);
          continue;
        }
        expect([subpath, existsSync(join(pkg, target.types)), existsSync(join(pkg, target.default))]).toEqual([subpath, true, true]);
      }
      const maps = (function walk(at: string): string[] {
        return readdirSync(at, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? walk(join(at, e.name)) : e.name.endsWith('.map') ? [join(at, e.name)] : [],
        );
      })(join(pkg, 'dist'));
      expect(maps.length).toBeGreaterThan(0);
      for (const map of maps) {
        for (const source of (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources) {
          expect([map, source, existsSync(resolve(dirname(map), source))]).toEqual([map, source, true]);
        }
      }
    },
    LONG,
  );
});

describe.each(['4', '5'])('in an Express %s app outside the workspace', (major) => {
  let dir: string;
  beforeAll(async () => {
    dir = await installs.get(`express${major}`)!;
  }, LONG);

  test(
    'the install has the Express the app asked for, one copy of it, and no ioredis',
    () => {
      const express = JSON.parse(readFileSync(join(dir, 'node_modules/express/package.json'), 'utf8')) as { version: string };
      expect(express.version.split('.')[0]).toBe(major);
      expect(existsSync(join(dir, 'node_modules/a2a-express/node_modules/express'))).toBe(false);
      expect(existsSync(join(dir, 'node_modules/ioredis'))).toBe(false);
    },
    LONG,
  );

  test(
    "the README's ten lines run as an ES module",
    async () => {
      writeFileSync(join(dir, 'server.mjs'), untyped(tenLines()));
      await checkEchoAgent(dir, 'server.mjs');
    },
    LONG,
  );

  test(
    "the README's ten lines run from CommonJS (require)",
    async () => {
      writeFileSync(join(dir, 'server.cjs'), asCommonJs(untyped(tenLines())));
      await checkEchoAgent(dir, 'server.cjs');
    },
    LONG,
  );

  test(
    "a strict nodenext TypeScript build (skipLibCheck off) of the ten lines and the README's push receiver compiles, and runs",
    async () => {
      mkdirSync(join(dir, 'src'), { recursive: true });
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(strictNodeNext, null, 2));
      writeFileSync(join(dir, 'src/server.ts'), tenLines());
      writeFileSync(join(dir, 'src/webhook.ts'), codeBlockWith(readme, 'pushNotificationReceiver({'));
      succeeded(await runCommand(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir }));
      await checkEchoAgent(dir, 'dist/server.js');
    },
    LONG,
  );
});

describe('a client-only project (no Express)', () => {
  let dir: string;
  let agent: SpawnedAgent;
  beforeAll(async () => {
    dir = await installs.get('client')!;
    // An agent to talk to: the ten lines, from the Express 5 app installed above.
    agent = await spawnAgent(process.execPath, ['server.mjs'], { cwd: join(work, 'express5-app') });
  }, LONG);
  afterAll(async () => agent && (await agent.stop()));

  test(
    'installs without Express',
    () => {
      expect(existsSync(join(dir, 'node_modules/express'))).toBe(false);
      expect(existsSync(join(dir, 'node_modules/@types/express'))).toBe(false);
    },
    LONG,
  );

  test(
    'compiles strict (nodenext, skipLibCheck off), with a typed push payload, and calls the agent',
    async () => {
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(strictNodeNext, null, 2));
      writeFileSync(
        join(dir, 'src/call.ts'),
        [
          "import { createPushNotificationVerifier, type PushNotificationPayload, type VerifiedNotification } from 'a2a-client/push-receiver';",
          "import { A2AClient } from 'a2a-client';",
          '',
          '// The payload is typed: a receiver reads taskId and the state without a cast.',
          'export const describe = ({ payload }: VerifiedNotification): string => `${payload.taskId} ${payload.status.state}`;',
          "export const verifier = createPushNotificationVerifier({ jwksUrl: 'http://127.0.0.1:9/jwks.json', expectedToken: (p: PushNotificationPayload) => p.taskId });",
          '',
          'const agent = new A2AClient(process.argv[2]!);',
          "const task = await agent.send({ id: 'client-only', message: { role: 'user', parts: [{ type: 'text', text: 'typed' }] } });",
          "console.log(task.status.state, task.artifacts?.[0]?.parts[0]?.type === 'text' ? task.artifacts[0].parts[0].text : '');",
        ].join('\n'),
      );
      succeeded(await runCommand(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir }));
      const ran = succeeded(await runCommand(process.execPath, ['dist/call.js', agent.url], { cwd: dir }));
      expect(ran.stdout.trim()).toBe('completed typed');
    },
    LONG,
  );

  test(
    'the a2a bin from the tarball reads the card and sends a message',
    async () => {
      const a2a = join(dir, 'node_modules/.bin/a2a');
      const card = succeeded(await runCommand(a2a, ['card', agent.url], { cwd: dir }));
      expect(card.stdout).toMatch(/Echo/);
      const sent = succeeded(await runCommand(a2a, ['send', '--json', agent.url, 'hello', 'bin'], { cwd: dir }));
      // --json prints what the agent answered (over A2A 1.0, the newest it serves), as JSON and nothing else.
      const { task } = JSON.parse(sent.stdout) as { task: { artifacts: { parts: { text: string }[] }[] } };
      expect(task.artifacts[0]!.parts[0]!.text).toBe('hello bin');
    },
    LONG,
  );
  test(
    'a2a mcp without the MCP SDK (an optional peer, not installed here) says how to install it',
    async () => {
      expect(existsSync(join(dir, 'node_modules/@modelcontextprotocol/sdk'))).toBe(false);
      const mcp = await runCommand(join(dir, 'node_modules/.bin/a2a'), ['mcp', agent.url], { cwd: dir });
      expect(mcp.status).toBe(2);
      expect(mcp.stderr).toMatch(/npm install @modelcontextprotocol\/sdk/);
    },
    LONG,
  );
  test(
    'a2a inspect from the tarball serves the page with everything it loads, nothing built on this machine',
    async () => {
      const child = spawn(join(dir, 'node_modules/.bin/a2a'), ['inspect', agent.url], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        const page = await printedAddress(child);
        const html = await (await fetch(page)).text();
        // Every script, style and icon the page names is served from the installed package.
        const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
        expect(assets).toEqual(expect.arrayContaining(['main.js', 'style.css']));
        for (const asset of [...assets, 'dom.js', 'model.js', 'curl.js', 'api.js', 'json-view.js']) {
          const response = await fetch(new URL(asset, page));
          expect([asset, response.status]).toEqual([asset, 200]);
        }
      } finally {
        child.kill('SIGTERM');
      }
    },
    LONG,
  );
});

describe('create-a2a-agent from its tarball, on the kit tarballs', () => {
  let project: string;
  let installed: CommandResult;
  beforeAll(async () => {
    ({ project, installed } = await scaffolded);
  }, LONG);

  test(
    "the new project's own commands work: npm install, npm test, npm start (its card carries the new name)",
    async () => {
      // Its `npm install` ran beside the other apps' installs (scaffold above).
      succeeded(installed);
      const tested = succeeded(await runCommand('npm', ['test'], { cwd: project }));
      expect(tested.stderr).toMatch(/Tests:\s+4 passed, 4 total/);
      const agent = await spawnAgent('npm', ['start'], { cwd: project, env: { PORT: '0' }, processGroup: true, timeoutMs: 60_000 });
      try {
        const card = (await (await fetch(`${agent.url}/.well-known/agent.json`)).json()) as { name: string };
        expect(card.name).toBe('Travel Desk');
        const logged = agent
          .output()
          .split('\n')
          .find((line) => line.includes('listening'))!;
        expect(JSON.parse(logged)).toMatchObject({ name: 'travel-desk', tasks: 'in memory' });
      } finally {
        await agent.stop();
      }
    },
    LONG,
  );
});
