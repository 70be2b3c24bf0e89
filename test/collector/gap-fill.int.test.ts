import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { configFor, runtimeFor } from '../helpers/collector.js';

/**
 * The daemon's pass is also its gap filler: after downtime, the first pass collects every window between the
 * checkpoint and now. Simulator and collector share a manual clock, so hours pass in no time.
 */
describe('gaps after downtime', () => {
  const start = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;
  const clock = new ManualClock(start);
  let sim: Simulator;
  const out = join(mkdtempSync(join(tmpdir(), 'gap-')), 'points.lp');

  beforeAll(async () => {
    // No quotas: a frozen manual clock would make a quota wait forever.
    sim = await startSimulator({ clock, quotas: NO_QUOTAS });
  });
  afterAll(() => sim.close());

  it('a restarted collector fills everything it missed, oldest first, with no missing window', async () => {
    const config = configFor(sim, { type: 'file', path: out });
    const first = await runtimeFor(config, clock);
    await first.collector.tick();
    const metricsJob = first.collector.jobs.find((j) => j.key === 'metrics/acme')!;
    const origin = first.store.confirmed(metricsJob.key)[0]!.from;
    // Initial lookback of 1 h before the newest collectable window (start − 2 min delay, floored to 10 minutes).
    expect(origin).toBe(start - 10 * MINUTE - HOUR);
    await first.close();

    clock.advance(5 * HOUR + 7 * MINUTE); // the daemon was down for five hours
    const second = await runtimeFor(config, clock);
    expect(second.collector.pending(metricsJob).length).toBeGreaterThan(25);
    const results = await second.collector.tick();
    expect(results.filter((r) => r.error)).toEqual([]);
    for (const job of second.collector.jobs.filter((j) => j.checkpointed)) {
      expect(second.collector.pending(job), job.key).toEqual([]);
    }
    // Every 10-minute window from the origin to the newest collectable one is in the output exactly once.
    const lastClosed = Math.floor((clock.now() - 2 * MINUTE) / (10 * MINUTE)) * 10 * MINUTE;
    const times = readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('cdn_metrics,account=acme '))
      .map((l) => Number(BigInt(l.split(' ').at(-1)!) / 1_000_000n));
    const expected: number[] = [];
    for (let t = origin; t < lastClosed; t += 10 * MINUTE) expected.push(t);
    expect(times.sort((a, b) => a - b)).toEqual(expected);
    await second.close();
  });
});
