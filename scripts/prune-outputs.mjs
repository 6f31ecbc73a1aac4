// Removes compiled files whose source is gone. `tsc -b` writes the outputs of the sources that
// exist and never deletes any, so a renamed or deleted module would stay in dist/: importable
// by mistake, and packed into the tarballs. Run after every build (the root `build` script).
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const OUTPUT = /\.(d\.ts\.map|d\.ts|js\.map|js)$/;

for (const group of ['packages', 'apps']) {
  for (const name of readdirSync(join(root, group))) {
    const dist = join(root, group, name, 'dist');
    const src = join(root, group, name, 'src');
    if (!existsSync(dist) || !existsSync(src)) continue;
    for (const file of filesUnder(dist)) {
      const output = relative(dist, file);
      if (!OUTPUT.test(output)) continue;
      const stem = output.replace(OUTPUT, '');
      // A package's browser page (a2a-client's inspector) compiles from page/src into dist/page.
      const sources = stem.startsWith('page/')
        ? [join(src, stem), join(root, group, name, 'page', 'src', stem.slice(5))]
        : [join(src, stem)];
      if (!sources.some((source) => ['.ts', '.mts', '.cts', '.tsx'].some((extension) => existsSync(source + extension)))) {
        rmSync(file);
        console.log(`removed ${relative(root, file)} (its source is gone)`);
      }
    }
  }
}

function* filesUnder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}
