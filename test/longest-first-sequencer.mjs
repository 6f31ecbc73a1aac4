// Jest's order for a run, longest suites first, so that the last suite to start is a short one and
// no worker is left alone with a long one at the end (the run's wall time is its busiest worker's).
// Jest does this itself from the timings it caches after a run, but a fresh clone (CI) has none:
// it then starts the largest files first, and a short file that takes minutes (hostile-probe.test.ts
// has 100 lines) started last, alone, for three of the run's twelve minutes. So the slow suites
// listed below go first, in the list's order; then the others, longest first by jest's cache,
// else largest file first. Failed suites are not moved to the front as jest does: all run anyway.
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

/**
 * The suites that take more than 9 s in a run of them all on two cores (two workers), roughly
 * longest first, each given its place in this list as its expected time. The run is bound by the
 * two cores, so the list pairs what spends the CPU (packaging's npm installs and strict builds, the
 * bench smoke's loads, the new app's install and build, the CLI's seventy processes, the image
 * deploys) with what mostly waits (the browser on the slow echo's chunks, the checker's twenty
 * requests a second, the replicas' leases and rolling restarts): two heavy ones side by side
 * overloaded the cores while, later, two waiting ones left them idle. The inspector's browser and
 * cli are kept apart: in three runs on a cold cache where those two started together, the agents
 * of both did not print their listening line within 15 s (not understood yet). Update the list
 * when a suite becomes one of the slow ones.
 */
const SLOW_SUITES = [
  'test/packaging.test.ts',
  'test/inspector-browser.test.ts',
  'test/bench-smoke.test.ts',
  'packages/a2a-client/test/check.test.ts',
  'test/new-app.test.ts',
  'apps/echo-agent/test/replicas.test.ts',
  'packages/a2a-client/test/cli.test.ts',
  'apps/echo-agent/test/rolling-restart.test.ts',
  'test/containers.test.ts',
  'apps/echo-agent/test/hostile-probe.test.ts',
  'packages/a2a-express/test/replicas.test.ts',
  'packages/a2a-express/test/postgres-store.test.ts',
  'packages/a2a-client/test/mcp.test.ts',
  'test/import-rules.test.ts',
  'test/sdk-clients.test.ts',
  'apps/echo-agent/test/edge-node.test.ts',
  'packages/a2a-client/test/inspector.test.ts',
  'apps/echo-agent/test/edge-hono.test.ts',
  'apps/echo-agent/test/edge-bun.test.ts',
  'packages/a2a-express/test/serve.test.ts',
  'apps/echo-agent/test/edge-deno.test.ts',
];

export default class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    // As jest's own sort does: a run of only short suites is run in band from these.
    for (const test of tests) test.duration = this.time(test);
    const expected = (test) => {
      // Listed: first, in the list's order; else what jest's cache says.
      const listed = SLOW_SUITES.indexOf(relative(test.context.config.rootDir, test.path).split('\\').join('/'));
      if (listed >= 0) return 1e9 - listed;
      const cached = this.time(test);
      return cached == null ? undefined : cached / 1000;
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
