import { defineConfig } from 'vitest/config';
import { removeRunTmpDir, testTmpDir } from './test/helpers/run-tmp.js';

/**
 * Two projects, by file name: `unit` (`*.test.ts`: no process, no server, no socket — the simulator answers
 * in-process — seconds, the inner loop, `npm run test:unit`) and `integration` (`*.int.test.ts`: the simulator as a
 * server, real InfluxDB and VictoriaMetrics, the CLI as a child process). test/layout/test-marks.test.ts checks that
 * a unit file reaches for none of those. `npm test` runs both.
 */
const INTEGRATION = 'test/**/*.int.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests run in child processes (signals, process groups, fixed temp dirs); files run in parallel.
    pool: 'forks',
    poolOptions: {
      // Unit files share one module cache per worker (no isolation): each file used to import src/ afresh, which was
      // most of the loop's time. Nothing in them may leave global state behind (test/layout/test-marks checks the
      // usual ways). Pool options are read from this root config, not from a project's. The pool keeps as many
      // workers as it may start: with fewer kept, an idle worker being let go can be handed the next file and
      // terminated under it ("Terminating worker thread"). Four, as their files wait on timers as well as compute.
      threads: { isolate: false, minThreads: 4, maxThreads: 4 },
      // Integration files too share a module cache per fork, under the same rule. Most of their time is spent
      // waiting on processes, servers and timers, not computing: five at a time keep both cores busy without
      // starving their timers.
      forks: { isolate: false, minForks: 5, maxForks: 5 },
    },
    // What tests leave in os.tmpdir() goes with the run (test/helpers/run-tmp.ts).
    env: { TMPDIR: testTmpDir() },
    reporters: ['default', removeRunTmpDir],
    projects: [
      // Unit files start no process and no server: worker threads start and load them faster than forks.
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [INTEGRATION], pool: 'threads' },
      },
      { extends: true, test: { name: 'integration', include: [INTEGRATION] } },
    ],
  },
});
