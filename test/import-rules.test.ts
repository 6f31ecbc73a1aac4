// The import rules of docs/architecture.md are checked by `pnpm lint` (dependency-cruiser with
// .dependency-cruiser.cjs), which the test command runs on the real tree after the tests (the
// same targets and configs: run here too, they cost 30 s of every test run). This shows the
// check fails on a tree that breaks each rule: a fixture whose core and edge import Express, whose core imports a version, the versions' wire types and
// the contract that names routes,
// whose versions import each other, whose transport imports a version, and whose only way back
// is a type import (a cycle still); whose model reaches up into a store and is made of a
// version's wire types, whose store runs the core, and whose core makes a store of its own
// (its import of the store contract beside it breaks nothing). And the fetch handler's path (.dependency-cruiser-fetch-path.cjs):
// a fixture whose fetch handler loads node:crypto, zlib (without its prefix) and, through a dynamic
// import, Express, and whose a2a-types imports node:module; its type import of node:http and its
// Node entry, off the path, break nothing. The client's main entry (the same config): a fixture
// whose entry reaches node:timers, gRPC by a dynamic import and the push receiver (node:crypto).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: unknown[];
  /** For a reachability rule: the modules on the way, the forbidden one last. */
  via?: { name: string }[];
}

/** Runs the check on `targets`: as lint does (its exit code), and once more for the JSON report's violations. */
async function check(targets: string[], config = '.dependency-cruiser.cjs'): Promise<{ exitCode: number; violations: Violation[] }> {
  const run = async (...extra: string[]) => {
    const args = [cli, ...targets, '--config', config, ...extra];
    try {
      const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
      return { code: 0, stdout };
    } catch (error) {
      return error as { code: number; stdout: string };
    }
  };
  // The JSON report exits 0 whatever it finds: the exit code lint goes by is the plain run's.
  const [asLint, report] = await Promise.all([run(), run('--output-type', 'json')]);
  return { exitCode: asLint.code, violations: JSON.parse(report.stdout).summary.violations };
}

describe('import rules (pnpm lint)', () => {
  test('a client entry that loads Node’s modules fails, each named with the way it is reached; its command line, off the path, breaks nothing', async () => {
    const { exitCode, violations } = await check(['test/fixtures/client-path'], '.dependency-cruiser-fetch-path.cjs');
    expect(exitCode).not.toBe(0);
    const src = 'test/fixtures/client-path/packages/a2a-client/src';
    const reached = violations.map((v) => ({
      rule: v.rule.name,
      from: v.from,
      to: v.to.replace(/^.*node_modules\//, ''),
      via: v.via?.map((step) => step.name.replace(/^.*node_modules\//, '')),
    }));
    expect(reached.sort((a, b) => a.to.localeCompare(b.to))).toEqual([
      // A dynamic import (gRPC on its first call): a bundler follows it too.
      {
        rule: 'no-node-on-the-client-path',
        from: `${src}/index.ts`,
        to: '@grpc/grpc-js/build/src/index.js',
        via: [`${src}/client-10.ts`, '@grpc/grpc-js/build/src/index.js'],
      },
      // A workspace package that needs Node (node:crypto), re-exported.
      {
        rule: 'no-node-on-the-client-path',
        from: `${src}/index.ts`,
        to: 'packages/a2a-push-receiver/dist/index.js',
        via: ['packages/a2a-push-receiver/dist/index.js'],
      },
      {
        rule: 'no-node-on-the-client-path',
        from: `${src}/index.ts`,
        to: 'timers/promises',
        via: [`${src}/client-10.ts`, `${src}/transport.ts`, 'timers/promises'],
      },
    ]);
  }, 60_000);

  test('a fetch handler that loads Node’s modules fails, each named with the way it is reached', async () => {
    const { exitCode, violations } = await check(['test/fixtures/fetch-path'], '.dependency-cruiser-fetch-path.cjs');
    expect(exitCode).not.toBe(0);
    const src = 'test/fixtures/fetch-path/packages/a2a-express/src';
    const reached = violations
      .filter((v) => v.rule.name === 'no-node-on-the-fetch-path')
      .map((v) => ({
        from: v.from,
        to: v.to.replace(/^.*node_modules\//, ''),
        via: v.via?.map((step) => step.name.replace(/^.*node_modules\//, '')),
      }));
    expect(reached.sort((a, b) => a.to.localeCompare(b.to))).toEqual([
      // node:crypto; the type import of node:http beside it in fetch.ts is erased, and loads nothing.
      { from: `${src}/fetch.ts`, to: 'crypto', via: [`${src}/edge/handler.ts`, `${src}/core/ids.ts`, 'crypto'] },
      // A dynamic import: a bundler follows it too.
      {
        from: `${src}/fetch.ts`,
        to: 'express/index.js',
        via: [`${src}/edge/handler.ts`, `${src}/edge/express-host.ts`, 'express/index.js'],
      },
      { from: `${src}/fetch.ts`, to: 'zlib', via: [`${src}/edge/handler.ts`, `${src}/core/digest.ts`, 'zlib'] },
    ]);
    expect(violations.filter((v) => v.rule.name === 'no-node-in-a2a-types').map((v) => `${v.from} -> ${v.to}`)).toEqual([
      'test/fixtures/fetch-path/packages/a2a-types/src/validators.ts -> module',
    ]);
  }, 60_000);

  test('a tree that breaks them fails, each rule named', async () => {
    const { exitCode, violations } = await check(['test/fixtures/import-rules']);
    expect(exitCode).not.toBe(0);
    const broken = (name: string) => violations.filter((v) => v.rule.name === name).map((v) => `${v.from} -> ${v.to}`);
    const src = 'test/fixtures/import-rules/packages/a2a-express/src';
    // Nor how a call travels: the contract that names routes and statuses is above the core.
    expect(broken('core-imports-no-version').sort()).toEqual([
      `${src}/core/engine.ts -> ${src}/versions/v0_3/mapping.ts`,
      `${src}/core/routes.ts -> ${src}/protocol/version.ts`,
    ]);
    expect(broken('version-imports-no-other-version')).toEqual([`${src}/versions/v0_3/mapping.ts -> ${src}/versions/v0_1/methods.ts`]);
    expect(broken('versions-through-the-list')).toEqual([`${src}/options.ts -> ${src}/versions/v0_1/methods.ts`]);
    expect(broken('transport-imports-no-version')).toEqual([`${src}/transports/json-rpc.ts -> ${src}/versions/v0_1/methods.ts`]);
    expect(broken('telemetry-is-a-leaf')).toEqual([`${src}/telemetry/metrics.ts -> ${src}/core/engine.ts`]);
    // The core takes no Express request (a type import counts), and from a2a-types only its model:
    // neither 0.1.0's types (the root) nor 0.3's. The file that imports the model breaks nothing.
    expect(broken('core-knows-no-express')).toEqual([
      expect.stringMatching(new RegExp(`^${src}/core/auth\\.ts -> .*node_modules/express/`)),
    ]);
    // Express only in its adapter: neither the edge nor the core (whose file breaks both rules).
    expect(broken('express-only-in-its-adapter').sort()).toEqual([
      expect.stringMatching(new RegExp(`^${src}/core/auth\\.ts -> .*node_modules/express/`)),
      expect.stringMatching(new RegExp(`^${src}/edge/exchange\\.ts -> .*node_modules/express/`)),
    ]);
    expect(broken('core-speaks-the-model').sort()).toEqual([
      expect.stringMatching(new RegExp(`^${src}/model/task\\.ts -> .*a2a-types/dist/v10/index\\.js$`)),
      expect.stringMatching(new RegExp(`^${src}/push/body\\.ts -> .*a2a-types/dist/v03/index\\.js$`)),
      expect.stringMatching(new RegExp(`^${src}/store/records\\.ts -> .*a2a-types/dist/index\\.js$`)),
    ]);
    expect(violations.filter((v) => v.from.endsWith('/core/errors.ts'))).toEqual([]);
    // The model is the bottom: the core and the stores stand on it, and it on nothing of theirs.
    expect(broken('model-is-the-bottom')).toEqual([`${src}/model/fold.ts -> ${src}/store/memory.ts`]);
    expect(broken('store-imports-no-core')).toEqual([`${src}/store/memory.ts -> ${src}/core/engine.ts`]);
    // The core may import the store contract, never a store.
    expect(broken('core-uses-the-store-contract')).toEqual([`${src}/core/service.ts -> ${src}/store/memory.ts`]);
    // Model and contract files that keep the rules break none.
    expect(violations.filter((v) => /\/(model\/record|store\/task-store)\.ts$/.test(v.from))).toEqual([]);
    // The way back is `import type`: a cycle all the same.
    expect(broken('no-circular').length).toBeGreaterThan(0);
  }, 60_000);
});
