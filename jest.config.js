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
  // Two workers, even on two cores (jest's default would be one): the slowest suites wait on
  // child processes (npm installs, agents, leases) as well as on the CPU. A third worker was tried
  // (2026-11-28): each file then took 1.6 times as long, the run no shorter (631 s against some
  // 640 s), and two tests that read a shared Redis or a child's log too early failed under the load.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // The slow suites first, from a list (a fresh clone has no timings), then the rest longest first.
  testSequencer: '<rootDir>/test/longest-first-sequencer.mjs',
  globalSetup: '<rootDir>/test/services-global-setup.mjs',
  globalTeardown: '<rootDir>/test/services-global-teardown.mjs',
};
