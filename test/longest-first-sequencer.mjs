// Jest's order for a run, longest suites first, so that the last suite to start is a short one and
// no worker is left alone with a long one at the end (the run's wall time is its busiest worker's).
// Jest does this itself from the timings it caches after a run, but a fresh clone (CI) has none:
// it then starts the largest files first, and a short file that takes minutes (hostile-probe.test.ts
// has 100 lines) started last, alone, for three of the run's twelve minutes. So a suite's expected
// time is what the cache says, else the time listed below, else unknown (those go after, largest
// file first). Failed suites are not moved to the front as jest does: all run anyway.
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

/**
 * Seconds each suite that takes more than 20 took in a full run on two cores (the last one's
 * .jest-results.json, endTime - startTime). Only their order matters: update it when a suite
 * becomes one of the slow ones.
 */
const SLOW_SUITES = {
  'test/inspector-browser.test.ts': 130,
  'packages/a2a-client/test/cli.test.ts': 128,
  'test/bench-smoke.test.ts': 119,
  'apps/echo-agent/test/hostile-probe.test.ts': 110,
  'test/packaging.test.ts': 110,
  'test/new-app.test.ts': 74,
  'test/containers.test.ts': 70,
  'packages/a2a-client/test/check.test.ts': 68,
  'packages/a2a-express/test/postgres-store.test.ts': 52,
  'test/sdk-clients.test.ts': 48,
  'packages/a2a-client/test/inspector.test.ts': 31,
  'packages/a2a-express/test/replicas.test.ts': 27,
};

export default class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    // As jest's own sort does: a run of only short suites is run in band from these.
    for (const test of tests) test.duration = this.time(test);
    const expected = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      return SLOW_SUITES[relative(test.context.config.rootDir, test.path).split('\\').join('/')];
    };
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    return tests
      .map((test) => ({ test, seconds: expected(test), bytes: size(test) }))
      .sort((a, b) => {
        if ((a.seconds == null) !== (b.seconds == null)) return a.seconds == null ? 1 : -1;
        if (a.seconds != null && a.seconds !== b.seconds) return b.seconds - a.seconds;
        return b.bytes - a.bytes;
      })
      .map(({ test }) => test);
  }
}
