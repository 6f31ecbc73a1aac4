// Versioning and release with Changesets: the public packages move together (one version for
// the kit, which create-a2a-agent writes into new projects), private ones are never published.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from 'a2a-testing';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const manifests = ['packages', 'apps', 'bench'].flatMap((folder) =>
  (folder === 'bench' ? [''] : readdirSync(join(root, folder))).map(
    (dir) =>
      JSON.parse(readFileSync(join(root, folder, dir, 'package.json'), 'utf8')) as { name: string; version: string; private?: boolean },
  ),
);
const config = JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8')) as {
  fixed: string[][];
  privatePackages: { version: boolean; tag: boolean };
  access: string;
};

test('one fixed group holds every public package, all on one version', () => {
  const publicPackages = manifests.filter((m) => !m.private);
  expect(config.fixed).toHaveLength(1);
  expect(config.fixed[0]!.slice().sort()).toEqual(publicPackages.map((m) => m.name).sort());
  expect(new Set(publicPackages.map((m) => m.version)).size).toBe(1);
  expect(config.access).toBe('public');
});

test('private packages (samples, bench, test helpers) are neither versioned nor tagged', () => {
  expect(manifests.filter((m) => m.private).length).toBeGreaterThan(0);
  expect(config.privatePackages).toEqual({ version: false, tag: false });
});

test('a changeset for one package moves every public package to the same next version, and no private one', async () => {
  // The workspace's manifests and the Changesets configuration, in a folder of their own.
  const copy = mkdtempSync(join(tmpdir(), 'changesets-'));
  try {
    for (const file of ['package.json', 'pnpm-workspace.yaml', '.changeset/config.json']) cpSync(join(root, file), join(copy, file));
    for (const folder of ['packages', 'apps']) {
      for (const dir of readdirSync(join(root, folder)))
        cpSync(join(root, folder, dir, 'package.json'), join(copy, folder, dir, 'package.json'));
    }
    cpSync(join(root, 'bench/package.json'), join(copy, 'bench/package.json'));
    writeFileSync(join(copy, '.changeset/fix-a-bug.md'), '---\n"a2a-types": patch\n---\n\nA fix.\n');
    const run = await runCommand(join(root, 'node_modules/.bin/changeset'), ['version'], { cwd: copy });
    expect([run.status, run.stderr]).toEqual([0, '']);
    const version = (folder: string, dir: string) =>
      (JSON.parse(readFileSync(join(copy, folder, dir, 'package.json'), 'utf8')) as { version: string }).version;
    const [major, minor, patch] = manifests
      .find((m) => !m.private)!
      .version.split('.')
      .map(Number);
    for (const dir of readdirSync(join(root, 'packages'))) {
      const before = manifests.find((m) => m.name === dir)!; // each folder under packages/ is named as its package
      expect([dir, version('packages', dir)]).toEqual([dir, before.private ? before.version : `${major}.${minor}.${patch! + 1}`]);
    }
    for (const dir of readdirSync(join(root, 'apps'))) expect([dir, version('apps', dir)]).toEqual([dir, '0.1.0']);
    expect(existsSync(join(copy, 'packages/a2a-types/CHANGELOG.md'))).toBe(true);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
