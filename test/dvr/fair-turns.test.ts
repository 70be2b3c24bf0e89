import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import { maxInSlidingWindow } from '../../src/sim/stats.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import { T0_MS } from './helpers.js';
import { simInProcess } from '../helpers/in-process.js';

const MINUTE = 60_000;
/** DVR quota of this test: 5 calls a minute, against more streams than that at one snapshot a minute. */
const QUOTA = { calls: 5, periodMs: MINUTE };

/** Snapshot times (cdn_dvr points) per `account stream`, from the file sink's line protocol. */
function snapshotsPerStream(path: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.startsWith('cdn_dvr,')) continue;
    const tags = line.split(/(?<!\\) /)[0]!;
    const key = `${/account=((?:\\.|[^,\\])+)/.exec(tags)![1]} ${/stream=((?:\\.|[^,\\])+)/.exec(tags)![1]}`;
    out.set(key, (out.get(key) ?? new Set()).add(line.split(' ').at(-1)!));
  }
  return out;
}

/**
 * The daemon's DVR passes, one per interval, on a clock the simulator shares: the streams need more calls than the
 * quota allows, so they take turns. While a pass runs the clock moves on 50 ms per 5 ms, never into the next interval:
 * a pass waits for the limiter's margin past the period, as the daemon's does.
 */
describe('DVR streams that do not fit the quota take fair turns', () => {
  const clock = new ManualClock(T0_MS);
  let sim: Simulator;
  beforeAll(async () => {
    sim = simInProcess({ clock, quotas: { ...NO_QUOTAS, dvr: QUOTA }, world: { streamsPerAccount: 12 } });
  });
  afterAll(() => sim.close());

  it('every stream is snapshotted, counts at most one apart, no 429, never over the quota in a minute', async () => {
    const streams = sim.streams;
    expect(streams.length).toBeGreaterThan(2 * QUOTA.calls); // the premise: they cannot all be read every minute
    const jobs = {
      metrics: { enabled: false },
      statistic: { enabled: false },
      streamstat: { enabled: false },
      dvr: { streams, interval: '1m' },
    };
    const dir = mkdtempSync(join(tmpdir(), 'dvr-fair-'));
    const out = join(dir, 'points.lp');
    const config = configFor(sim, { type: 'file', path: out }, { jobs, state: { dir: join(dir, 'state') } });
    const rt = await runtimeFor(config, clock);
    const passes = Math.ceil(streams.length / QUOTA.calls) + 3;
    const readsPerPass: number[] = [];
    try {
      for (let k = 0; k < passes; k++) {
        const start = T0_MS + k * MINUTE;
        clock.set(Math.max(clock.now(), start + 1000));
        const pass = Promise.all(rt.collector.jobs.map((job) => rt.collector.runOnce(job, 'live')));
        let done = false;
        void pass.finally(() => (done = true));
        while (!done) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (!done && clock.now() < start + MINUTE - 1000) clock.advance(50);
        }
        const results = await pass;
        expect(results.filter((r) => r.error)).toEqual([]);
        readsPerPass.push(results.reduce((n, r) => n + r.spans, 0));
      }
    } finally {
      await rt.close();
    }
    const counts = snapshotsPerStream(out);
    expect(counts.size).toBe(streams.length);
    const sizes = [...counts.values()].map((times) => times.size);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    // Each pass reads the quota's budget, no more (and so the round moves on), and the simulator refused nothing.
    expect(readsPerPass.every((n) => n === QUOTA.calls)).toBe(true);
    expect(sim.stats.apis.dvr.quotaRejections).toBe(0);
    expect(maxInSlidingWindow(sim.stats.apis.dvr.admittedAt, QUOTA.periodMs)).toBeLessThanOrEqual(QUOTA.calls);
  });
});
