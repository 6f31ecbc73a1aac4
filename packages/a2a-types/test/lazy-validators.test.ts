// Importing a2a-types compiles no schema: each version's validators are compiled when first called,
// so that a program pays only for what it checks (the `a2a` command line, an agent spoken to in
// one version). In a process of its own, for modules loaded fresh.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

test('importing a2a-types adds no schema to any Ajv; the first call of a validator does', async () => {
  // Every Ajv class (draft-07's, 2020-12's) adds schemas through its core's addSchema: counted there.
  const script = `
    import Core from 'ajv/dist/core.js';
    let added = 0;
    const addSchema = Core.default.prototype.addSchema;
    Core.default.prototype.addSchema = function (...args) { added++; return addSchema.apply(this, args); };
    const types = await import('a2a-types');
    await Promise.all(['a2a-types/model', 'a2a-types/v0.3', 'a2a-types/v1.0'].map((name) => import(name)));
    const atImport = added;
    const valid = types.validateTaskIdParams({ id: 't' });
    console.log(JSON.stringify({ atImport, valid, addedByTheCall: added > atImport }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir });
  expect(JSON.parse(stdout)).toEqual({ atImport: 0, valid: true, addedByTheCall: true });
});
