// Each AI library is a peer an agent may not have: the package's root and each entry point must
// load without the libraries it does not adapt. Checked in a child Node process, with a module
// hook that refuses to resolve the libraries an entry point must not reach (the built package,
// as an agent imports it).
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const hooks = pathToFileURL(join(packageDir, 'test', 'refuse-modules-hooks.mjs')).href;

/** Imports `entry` in a fresh process where `refused` (package names) cannot be resolved. */
async function importWithout(entry: string, refused: string[]): Promise<{ ok: boolean; output: string }> {
  const script = [
    `import { register } from 'node:module';`,
    `register(${JSON.stringify(hooks)}, { data: { refused: ${JSON.stringify(refused)} } });`,
    `await import(${JSON.stringify(entry)});`,
    `console.log('loaded');`,
  ].join('\n');
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir });
    return { ok: stdout.includes('loaded'), output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
  }
}

test.each([
  ['a2a-ai', ['ai', '@langchain/core']],
  ['a2a-ai/ai-sdk', ['@langchain/core']],
  ['a2a-ai/langchain', ['ai']],
  ['a2a-ai/llm-config', ['ai', '@langchain/core']],
])('%s loads without %j', async (entry, refused) => {
  expect(await importWithout(entry, refused)).toMatchObject({ ok: true });
});

test('the hook does refuse: the AI SDK entry point needs the AI SDK', async () => {
  const result = await importWithout('a2a-ai/ai-sdk', ['ai']);
  expect(result.ok).toBe(false);
  expect(result.output).toContain('refused: ai');
});
