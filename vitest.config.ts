import { defineConfig } from 'vitest/config';

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
    // Integration tests start real servers on fixed temp dirs/ports; files still run in parallel workers.
    pool: 'forks',
    // Vitest's default on a 2-core machine is one worker (cores - 1), and most integration tests wait on processes,
    // servers and timers rather than compute: three files at a time keep both cores busy.
    maxWorkers: 3,
    poolOptions: {
      // Unit files share one module cache per worker (no isolation): each file used to import src/ afresh, which was
      // most of the loop's time. Nothing in them may leave global state behind (test/layout/test-marks checks the
      // usual ways). Pool options are read from this root config, not from a project's. The pool keeps as many
      // workers as it may start: with fewer kept, an idle worker being let go can be handed the next file and
      // terminated under it ("Terminating worker thread"). Four, as their files wait on timers as well as compute.
      threads: { isolate: false, minThreads: 4, maxThreads: 4 },
    },
    reporters: ['default'],
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
