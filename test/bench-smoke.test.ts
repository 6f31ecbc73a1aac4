// The benchmark is not part of the test command (it measures; tests check). This smoke test
// only shows that `pnpm bench` still runs a section and prints its
// table and machine-readable results, so a change that breaks the bench is caught in CI. Each
// tool runs with the least that still takes every path (one round, one turn, short warm-ups and
// loads): what is measured is no matter here. Loads read by autocannon last a second, the least
// its averages (req/s) are taken over.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresUrl } from 'a2a-testing';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const run = promisify(execFile);

// The tools run at once (test.concurrent): most of each is a load held for a set time, so side by
// side they take the time of the longest rather than of all thirteen added up.
describe('pnpm bench', () => {
  test.concurrent('--quick --only validation prints the section and writes --json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    try {
      const file = join(dir, 'results.json');
      const { stdout } = await run(process.execPath, ['bench/run.mjs', '--quick', '--only', 'validation', '--json', file], {
        cwd: root,
        timeout: 60_000,
      });
      expect(stdout).toMatch(/quick run, \d+ CPUs/);
      expect(stdout).toMatch(/4\. Validation: \d+\.\d+ µs per tasks\/send params check/);
      const results = JSON.parse(readFileSync(file, 'utf8')) as { machine: { mode: string }; validation: { microsecondsPerCall: number } };
      expect(results.machine.mode).toBe('quick');
      expect(results.validation.microsecondsPerCall).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  test.concurrent('bench:list times ListTasks on each store at each task count, and refuses a count that is not one', async () => {
    const { stdout } = await run(
      process.execPath,
      ['bench/list-tasks.mjs', '--tasks', '20,200', '--rounds', '1', '--calls', '5', '--stores', 'memory'],
      { cwd: root, timeout: 60_000 },
    );
    expect(stdout).toMatch(/10\. ListTasks .* µs a call, median of 1 rounds of 5 calls; .*, \d+ CPUs, Node v\d+/);
    expect(stdout).toMatch(/memory, 200 tasks +│ +\d+ +│ +\d+ +│ +\d+ +│/);
    expect(stdout).toMatch(/^memory, 200 against 20 tasks: status=FAILED, pageSize 1: \d+\.\d\d×/m);
    const failure = await run(process.execPath, ['bench/list-tasks.mjs', '--tasks', 'many'], { cwd: root, timeout: 30_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
  }, 90_000);

  test.concurrent('bench:dispatch measures the core of each version it is given', async () => {
    const { stdout } = await run(process.execPath, ['bench/dispatch.mjs', '--versions', '0.1.0,1.0', '--calls', '200', '--turns', '1'], {
      cwd: root,
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^0\.1\.0 +\d+\.\d µs of CPU per call\n1\.0 +\d+\.\d µs of CPU per call\n$/);
  }, 90_000);

  test.concurrent('bench:grpc sets the kit against the SDK 1.x gRPC server, calls and a stream, each answer checked', async () => {
    const { stdout } = await run(
      process.execPath,
      ['bench/grpc.mjs', '--rounds', '1', '--seconds', '0.3', '--in-flight', '4', '--chunks', '50', '--calls', '2000'],
      { cwd: root, timeout: 60_000 },
    );
    expect(stdout).toMatch(/^SendMessage +ours \d+ calls\/s, SDK 1\.x \d+ calls\/s: \d+\.\d\d×/m);
    // With h2load installed, the SDK and the kit each kept busy; without it, a note that says so.
    expect(stdout).toMatch(/^SendMessage, h2load(: skipped \(h2load| +ours \d+ calls\/s, SDK 1\.x \d+ calls\/s: \d+\.\d\d×)/m);
    expect(stdout).toMatch(/^SendStreamingMessage \(50 chunks\) +ours \d+ messages\/s, SDK 1\.x \d+ messages\/s: \d+\.\d\d×/m);
  }, 90_000);

  test.concurrent('bench:stores sets the three stores side by side and counts what PostgreSQL writes for an event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    try {
      const file = join(dir, 'stores.json');
      const { stdout } = await run(
        process.execPath,
        [
          'bench/stores.mjs',
          '--rounds',
          '1',
          '--seconds',
          '1',
          '--warm-up',
          '0.2',
          '--stream-chunks',
          '50',
          '--cost-chunks',
          '20,40',
          '--json',
          file,
        ],
        { cwd: root, timeout: 120_000 },
      );
      expect(stdout).toMatch(/^│ PostgreSQL +│ +\d+ +│/m);
      expect(stdout).toMatch(/one chunk a change +│ +1 +│ +\d+ +│/);
      const results = JSON.parse(readFileSync(file, 'utf8')) as {
        warmUpSeconds: number;
        speed: Record<string, { 'req/s': number }>;
        cost: Record<string, unknown>;
      };
      expect(results.warmUpSeconds).toBe(0.2);
      expect(results.speed.PostgreSQL!['req/s']).toBeGreaterThan(0);
      expect(Object.keys(results.cost)).toEqual(['20 chunks', '40 chunks']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  test.concurrent('bench:stores --against sets each store against another side in paired rounds: the ratios, their middle half, each round', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    try {
      const file = join(dir, 'stores-ab.json');
      // Against itself with resume on: the paired rounds without a second checkout to build; on
      // the tests' PostgreSQL, not a cluster of the bench's own, which the in-memory store needs not.
      const { stdout } = await run(
        process.execPath,
        [
          'bench/stores.mjs',
          ...['--against', 'resume', '--stores', 'memory', '--database-url', postgresUrl()],
          ...['--rounds', '3', '--seconds', '1', '--warm-up', '0.2', '--stream-chunks', '50', '--streams', '2', '--json', file],
        ],
        { cwd: root, timeout: 120_000 },
      );
      expect(stdout).toMatch(/; 3 paired rounds of 1 s a server and 2 stream\(s\), medians/);
      // console.table quotes the middle half, a string.
      expect(stdout).toMatch(/^│ in-memory +│ +\d+ +│ +\d+ +│ +\d+(\.\d+)? +│ +'\d+\.\d\d–\d+\.\d\d' +│/m);
      const results = JSON.parse(readFileSync(file, 'utf8')) as {
        speed: Record<string, Record<string, number | string>>;
        eachRound: Record<string, Record<'req/s ratio' | 'stream ratio' | 'CPU an event ratio', number[]>>;
      };
      const rounds = results.eachRound['in-memory']!;
      expect(rounds['req/s ratio']).toHaveLength(3);
      expect(rounds['stream ratio']).toHaveLength(3);
      // The median is one of the rounds' ratios (the middle one of three), and lies within the middle half.
      const sorted = [...rounds['stream ratio']].sort((a, b) => a - b);
      expect(results.speed['in-memory']!['stream ratio']).toBe(Number(sorted[1]!.toFixed(2)));
      expect(results.speed['in-memory']!['stream ratio, middle half']).toBe(`${sorted[0]!.toFixed(2)}–${sorted[1]!.toFixed(2)}`);
      // Rounds 1 and 2 went in both orders: their ratios' geometric mean.
      expect(results.speed['in-memory']!['stream ratio, both orders']).toBe(
        Number(Math.sqrt(rounds['stream ratio'][0]! * rounds['stream ratio'][1]!).toFixed(2)),
      );
      // The CPU each side took, read from Linux's schedstat: a ratio per round.
      expect(rounds['CPU an event ratio']).toHaveLength(3);
      expect(results.speed['in-memory']!['CPU an event ratio']).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  test.concurrent("bench:pg-drivers sets pg against postgres.js on the store's statements", async () => {
    const { stdout } = await run(process.execPath, ['bench/pg-drivers.mjs', '--rounds', '1', '--seconds', '0.3'], {
      cwd: root,
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^│ pg +│ +\d+ +│ +\d+ +│ +1 +│/m);
    expect(stdout).toMatch(/^│ postgres +│ +\d+ +│ +\d+ +│ +\d+(\.\d+)? +│/m);
  }, 90_000);

  test.concurrent('bench:shipped sets the echo agent as shipped against a bench server, and refuses a missing --against', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        'bench/shipped-ab.mjs',
        ...['--against', 'bench/servers/node-http.mjs', '--versions', '0.1.0', '--rounds', '1', '--seconds', '1', '--warm-up', '0.2'],
      ],
      { cwd: root, timeout: 60_000 },
    );
    expect(stdout).toMatch(/; 1 paired rounds of 1 s after 0\.2 s of warm-up/);
    expect(stdout).toMatch(
      /^0\.1\.0 +\d+ req\/s, \d+ µs of CPU a request; against \d+ req\/s, \d+ µs: \d+\.\d\d× req\/s, \d+\.\d\d× CPU$/m,
    );
    const failure = await run(process.execPath, ['bench/shipped-ab.mjs'], { cwd: root, timeout: 30_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('--against takes the folder of another checkout');
  }, 90_000);

  test.concurrent('bench:shipped sets the echo agent against itself less a part users rely on (without:), and names the parts it knows', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        'bench/shipped-ab.mjs',
        ...['--against', 'without:call-logs,retention', '--versions', '0.3', '--rounds', '1', '--seconds', '1', '--warm-up', '0.2'],
      ],
      { cwd: root, timeout: 60_000 },
    );
    expect(stdout).toMatch(/^0\.3 +\d+ req\/s, \d+ µs of CPU a request; against \d+ req\/s, \d+ µs: \d+\.\d\d× req\/s, \d+\.\d\d× CPU$/m);
    // Refused when that side starts, after this checkout's agent has had its round.
    const failure = await run(
      process.execPath,
      [
        'bench/shipped-ab.mjs',
        '--against',
        'without:validation',
        '--versions',
        '0.3',
        '--rounds',
        '1',
        '--seconds',
        '1',
        '--warm-up',
        '0.2',
      ],
      {
        cwd: root,
        timeout: 30_000,
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain('no part validation (call-logs, metrics, push, retention)');
  }, 90_000);

  test.concurrent("bench:shipped --streams reads section 9's streams from both checkouts, an SDK server or bare Express's floor, events/s and CPU an event", async () => {
    const { stdout } = await run(
      process.execPath,
      ['bench/shipped-ab.mjs', '--against', root, '--streams', '5', '--streams-count', '20', '--versions', '0.3,1.0', '--rounds', '1'],
      { cwd: root, timeout: 60_000 },
    );
    expect(stdout).toMatch(/^20 streams of 5 chunks a round, /m);
    for (const version of ['0.3', '1.0'])
      expect(stdout).toMatch(
        new RegExp(
          `^${version.replace('.', '\\.')} +\\d+ events/s, \\d+\\.\\d µs of CPU an event; against \\d+ events/s, \\d+\\.\\d µs: \\d+\\.\\d\\d× events/s, \\d+\\.\\d\\d× CPU$`,
          'm',
        ),
      );
    // 0.3 streams against a bench server: an SDK's, or bare Express writing the same events and
    // nothing else (the floor under a stream).
    for (const server of ['bench/servers/sdk.mjs', 'bench/servers/bare.mjs']) {
      const { stdout: against } = await run(
        process.execPath,
        ['bench/shipped-ab.mjs', '--against', server, '--streams', '5', '--streams-count', '20', '--versions', '0.3', '--rounds', '1'],
        { cwd: root, timeout: 60_000 },
      );
      expect(against).toMatch(/^0\.3 +\d+ events\/s, \d+\.\d µs of CPU an event; against \d+ events\/s/m);
    }
    // Servers with no stream routes the tool knows are refused.
    const failure = await run(
      process.execPath,
      ['bench/shipped-ab.mjs', '--against', 'bench/servers/endpoint-only.mjs', '--streams', '5'],
      {
        cwd: root,
        timeout: 30_000,
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain(
      '--streams takes a number of chunks, and --against another checkout, an SDK server (bench/servers/sdk.mjs, sdk10.mjs) or bench/servers/bare.mjs',
    );
  }, 90_000);

  test.concurrent('bench:where profiles the endpoint alone, the agent without its parts and as shipped, a row for each place code lives', async () => {
    const { stdout } = await run(
      process.execPath,
      ['bench/where-time-goes.mjs', '--versions', '0.1.0', '--seconds', '1', '--warm-up', '0.2'],
      {
        cwd: root,
        timeout: 90_000,
      },
    );
    expect(stdout).toMatch(/^0\.1\.0 request\/response, 32 connections, 1 s after 0\.2 s of warm-up/m);
    expect(stdout).toMatch(/^ +endpoint alone +agent without parts +agent as shipped$/m);
    // The endpoint alone runs no task work and no pino: pino's row reads 0.0 there whatever the
    // machine's load. The core's row there is a header read (the edge and the core read headers
    // with one function, core/call.ts's headerOf), a sampled figure that a loaded machine can
    // push past a microsecond: only its row is checked. The other columns' figures are samples,
    // for the reader to compare.
    expect(stdout).toMatch(/^busy +\d+\.\d +\d+\.\d +\d+\.\d$/m);
    expect(stdout).toMatch(/^kit core +\d+\.\d +\d+\.\d +\d+\.\d$/m);
    expect(stdout).toMatch(/^npm pino +0\.0 +\d+\.\d +\d+\.\d$/m);
    const failure = await run(process.execPath, ['bench/where-time-goes.mjs', '--versions', '0.2'], { cwd: root, timeout: 30_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('no version 0.2 (0.1.0, 0.3, 1.0, 1.0-rest)');
  }, 120_000);

  test.concurrent("runs-median sets each comparison's ratio in every run beside their median, and refuses a file without section 9", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-median-'));
    try {
      const results = JSON.parse(readFileSync(join(root, 'bench/results-versions-latest.json'), 'utf8'));
      // Three runs that differ in the first pair's request/response ratio alone.
      const files = [0.5, 0.9, 0.7].map((send, i) => {
        results.versions.pairs[0].send = send;
        const file = join(dir, `run${i}.json`);
        writeFileSync(file, JSON.stringify(results));
        return file;
      });
      const { stdout } = await run(process.execPath, ['bench/runs-median.mjs', ...files], { cwd: root, timeout: 30_000 });
      expect(stdout).toMatch(/^3 runs on \d+ CPUs, /m);
      expect(stdout).toContain('| a2aRouter 0.3 vs SDK 0.3.14, 0.3, request/response | 0.50×, 0.90×, 0.70× | **0.70×** |');
      const failure = await run(process.execPath, ['bench/runs-median.mjs', join(root, 'package.json')], {
        cwd: root,
        timeout: 30_000,
      }).catch((error: { code: number; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 2 });
      expect((failure as { stderr: string }).stderr).toContain('holds no section 9 results');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test.concurrent('an unknown --only section is refused with the list of sections', async () => {
    const failure = await run(process.execPath, ['bench/run.mjs', '--only', 'speed'], { cwd: root, timeout: 30_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('rr, streaming, memory, validation, redis');
  });
});
