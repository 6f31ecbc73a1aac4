// Before packing: copies the sample agents' sources (apps/<template>-agent/src) into
// templates/<template>/src, so that the package carries the agents a new project starts from.
// In the repository the scaffolder reads the samples themselves; `--remove` (after packing)
// deletes the copies again so they never go stale there.
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const packageRoot = resolve(import.meta.dirname, '..');
const templates = readdirSync(join(packageRoot, 'templates'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'standalone' && entry.name !== 'workspace')
  .map((entry) => entry.name);
for (const template of templates) {
  const copy = join(packageRoot, 'templates', template, 'src');
  rmSync(copy, { recursive: true, force: true });
  if (process.argv.includes('--remove')) continue;
  cpSync(join(packageRoot, '..', '..', 'apps', `${template}-agent`, 'src'), copy, { recursive: true });
}
