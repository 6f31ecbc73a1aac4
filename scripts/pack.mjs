// Packs every public package under packages/ into one folder (default ./tarballs), as the
// registry would receive them: `workspace:` versions replaced, only the files each package
// lists. Installing those tarballs together with plain npm is how to use the kit outside this
// repository before it is published (README, "Use it in your own Express app").
// Usage: node scripts/pack.mjs [destination]   (run `pnpm run build` first; `pnpm run pack` does both)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const destination = resolve(process.argv[2] ?? join(root, 'tarballs'));
mkdirSync(destination, { recursive: true });

// pnpm, as the one running this script when there is one, else from the PATH.
const pnpm = process.env.npm_execpath && /pnpm/.test(process.env.npm_execpath) ? [process.execPath, process.env.npm_execpath] : ['pnpm'];

const packages = [];
for (const name of readdirSync(join(root, 'packages')).sort()) {
  const dir = join(root, 'packages', name);
  if (!existsSync(join(dir, 'package.json'))) continue;
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  if (!existsSync(join(dir, 'dist'))) throw new Error(`${manifest.name} is not built: run pnpm run build first`);
  packages.push(manifest);
}
// One pnpm for them all (pack --recursive, each package by its name): a pnpm a package took a
// second or more each to start.
execFileSync(
  pnpm[0],
  [...pnpm.slice(1), '--recursive', ...packages.flatMap(({ name }) => ['--filter', name]), 'pack', '--pack-destination', destination],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
);
for (const { name, version } of packages) console.log(join(destination, `${name}-${version}.tgz`));
