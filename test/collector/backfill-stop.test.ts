import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeBackfill } from '../../src/backfill/backfill.js';
import type { Runtime } from '../../src/app/runtime.js';
import { planBackfill } from '../../src/plan/planner.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

const MINUTE = 60_000;

/**
 * Ctrl-C of a backfill (or a cancelled request handed to the daemon) stops after the spans under way, not after the
 * rest of the pass: at the statistics quota (5 calls/min) a pass of 8 spans per job kept a "stopped" backfill of a
 * few jobs collecting for minutes.
 */
describe('a backfill asked to stop', () => {
  const s = useSimulator();
  let rt: Runtime | undefined;
  afterAll(async () => rt?.close());

  it('collects at most the span being written and the one being fetched per job once asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'backfill-stop-'));
    const config = configFor(
      s.sim,
      { type: 'file', path: join(dir, 'out.lp') },
      {
        accounts: s.sim.accounts.slice(0, 2),
        jobs: {
          metrics: { window: '1m', delay: '1s', byResource: false },
          statistic: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
        },
      },
    );
    rt = await runtimeFor(config);
    const to = Math.floor(Date.now() / MINUTE) * MINUTE - 10 * MINUTE;
    const plan = planBackfill(rt.collector, { from: to - 30 * MINUTE, to });
    expect(plan.jobs.map((j) => j.spans.length)).toEqual([30, 30]);

    let stop = false;
    const outcome = await executeBackfill(rt.collector, plan, { onSpan: () => (stop = true), shouldStop: () => stop });
    expect(outcome.stopped).toBe(true);
    // Per job: the span whose confirmation asked to stop or was under way, and the next one already fetched.
    expect(outcome.spans).toBeGreaterThan(0);
    expect(outcome.spans).toBeLessThanOrEqual(2 * plan.jobs.length);
  }, 60_000);
});
