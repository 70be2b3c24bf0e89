import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSimConfig } from '../helpers/collector.js';
import { loadedModuleNames } from '../helpers/loaded-modules.js';
import { useSimulator } from '../helpers/sim.js';

/**
 * What `run` loads when it collects (a lean daemon): not the simulator, not verify's comparison and
 * readers' clients, not the online checks, not the tables and progress bars of other commands, not the time zone
 * library (the collector asks in UTC; only the simulator answers in zones).
 */
const NOT_FOR_RUN = new RegExp(
  [
    /^(@influxdata\/.*|cli-table3|cli-progress|luxon)$/,
    /^dist\/sim\/(?!faults\.js$|model\/rng\.js$)/,
    /^dist\/verify\/(run|verify|repair|compare|plan)\.js$/,
    /^dist\/cli\/(run\/check-online|run\/probe|common\/sink-probe)\.js$/,
  ]
    .map((r) => r.source)
    .join('|'),
);

describe('what `run --once` loads (a real process with a module-loader hook)', () => {
  const s = useSimulator();
  const dir = mkdtempSync(join(tmpdir(), 'run-modules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the collector, its sources and sink; none of the modules only other commands use', async () => {
    const jobs = { dvr: { enabled: false }, statistic: { enabled: false }, streamstat: { enabled: false } };
    const config = writeSimConfig(dir, s.sim, { jobs, state: { dir: join(dir, 'state'), initialLookback: '15m' } });
    const names = await loadedModuleNames(['run', '--once', '--config', config]);
    // It ran (so the check below could fail): the collector and a source were loaded.
    expect(names).toContain('dist/collector/collector.js');
    expect(names).toContain('dist/sources/metrics/jobs.js');
    expect(names.filter((name) => NOT_FOR_RUN.test(name))).toEqual([]);
  }, 60_000);
});
