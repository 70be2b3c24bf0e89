import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSimConfig } from '../helpers/collector.js';
import { moduleHook } from '../helpers/loaded-modules.js';
import { useSimulator } from '../helpers/sim.js';
import { ensureBuilt, spawnEntry, waitFor } from '../ops/entry.js';

/**
 * What the daemon loads: what runs a backfill or a verify handed over by a command beside it (the planner's backfill,
 * the owned range, verify's comparison and its readers of the database) is loaded when a request arrives, not at
 * start.
 */
const HAND_OVER_ONLY = new RegExp(
  [
    /^dist\/backfill\/(backfill|handed-over|owned-range)\.js$/,
    /^dist\/verify\/(run|verify|compare)\.js$/,
    /^dist\/verify\/readers\/(flux|influxql|victoria)\.js$/,
  ]
    .map((r) => r.source)
    .join('|'),
);

describe('what the daemon loads (a real process with a module-loader hook)', () => {
  const s = useSimulator();
  const dir = mkdtempSync(join(tmpdir(), 'daemon-modules-'));
  const hook = moduleHook();
  afterAll(() => {
    hook.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('backfill code only once a backfill is handed over', async () => {
    ensureBuilt();
    const jobs = { dvr: { enabled: false }, statistic: { enabled: false }, streamstat: { enabled: false } };
    const state = { dir: join(dir, 'state'), initialLookback: '15m' };
    const config = writeSimConfig(dir, s.sim, { jobs, state });
    const daemon = spawnEntry(['run', '--config', config], hook.env);
    try {
      await waitFor(
        'the daemon status file',
        async () => (existsSync(join(dir, 'state', 'daemon-status.json')) ? true : undefined),
        60_000,
        daemon.output,
      );
      const atStart = hook.names();
      expect(atStart).toContain('dist/app/daemon.js');
      expect(atStart).toContain('dist/backfill/server.js');
      expect(atStart.filter((name) => HAND_OVER_ONLY.test(name))).toEqual([]);

      const now = Date.now();
      const range = [
        '--from',
        new Date(now - 10 * 60_000).toISOString(),
        '--to',
        new Date(now - 5 * 60_000).toISOString(),
      ];
      const backfill = spawnEntry(['backfill', '--config', config, ...range, '--dry-run', '--json']);
      expect(await backfill.exited, backfill.output()).toBe(0);
      expect(hook.names()).toContain('dist/backfill/handed-over.js');
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  }, 120_000);
});
