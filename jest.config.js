import { availableParallelism } from 'node:os';

/**
 * One jest run over every package. Tests are TypeScript, run as native ESM (jose and the
 * packages are ESM-only), transpiled by ts-jest without type-checking: `pnpm test` runs
 * `tsc -p tsconfig.test.json` first, so types are still checked once.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }] },
  testTimeout: 20000,
  // At least three workers, even on two cores (jest's default would be one): the slowest suites
  // wait on child processes, the registry and timers (npm installs, agents, leases) as much as on
  // the CPU. With two workers the two cores were idle a sixth of a full run (sampled from /proc);
  // a third worker took 641 s against some 700 s on the same machine.
  maxWorkers: Math.max(3, availableParallelism() - 1),
  // The slow suites first, from a list (a fresh clone has no timings), then the rest longest first.
  testSequencer: '<rootDir>/test/longest-first-sequencer.mjs',
  globalSetup: '<rootDir>/test/services-global-setup.mjs',
  globalTeardown: '<rootDir>/test/services-global-teardown.mjs',
};
