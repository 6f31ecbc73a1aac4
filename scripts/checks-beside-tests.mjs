// `pnpm test` after the build: the tests, the test type-check and the lint at once, not one after
// the other. The type-check and the lint each keep one core busy for some twenty seconds while the
// test run, which waits on agents, installs and browsers as much as on the CPU, leaves cores idle;
// run in turn they added their whole time to every CI run. The tests print as they go; what the
// other two print is held and shown when each ends, so no output is interleaved. Exits non-zero
// when any of the three fails, after all three have ended (one failure does not hide another).
import { spawn } from 'node:child_process';

const pnpm = process.env.npm_execpath;
const [command, prefix] = pnpm && /pnpm/.test(pnpm) ? [process.execPath, [pnpm]] : ['pnpm', []];
const jestArgs = process.argv.slice(2);

function run(name, args, { live }) {
  return new Promise((resolve) => {
    const child = spawn(command, [...prefix, ...args], { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    const held = [];
    if (!live) {
      child.stdout.on('data', (chunk) => held.push(chunk));
      child.stderr.on('data', (chunk) => held.push(chunk));
    }
    child.on('error', (error) => {
      console.error(`${name}: could not start: ${error.message}`);
      resolve({ name, status: 1 });
    });
    child.on('close', (code, signal) => {
      const status = code ?? 1;
      if (!live) {
        process.stdout.write(`\n── ${name} ${status === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`}\n`);
        process.stdout.write(Buffer.concat(held));
      }
      resolve({ name, status });
    });
  });
}

const results = await Promise.all([
  run('jest', ['run', 'jest', ...jestArgs], { live: true }),
  run('typecheck:tests', ['run', '--silent', 'typecheck:tests'], { live: false }),
  run('lint', ['run', '--silent', 'lint'], { live: false }),
]);
const failed = results.filter((r) => r.status !== 0).map((r) => r.name);
if (failed.length > 0) console.error(`\n${failed.join(', ')} failed`);
process.exit(failed.length > 0 ? 1 : 0);
