import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stopCollecting } from '../../src/app/stop.js';
import type { Runtime } from '../../src/app/runtime.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { API_NAMES } from '../../src/spec/apis.js';
import type { CollectJob } from '../../src/sources/common/types.js';
import { configFor, onlyJobs, runtimeFor } from '../helpers/collector.js';

const ACCOUNTS = 30;
const open: Array<{ sim: Simulator; rt: Runtime; dir: string }> = [];
afterEach(async () => {
  for (const { sim, rt, dir } of open.splice(0)) {
    await stopCollecting(rt);
    await rt.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A runtime collecting the metrics of 30 accounts (60 jobs; `metrics` settings) from `lookback` ago, from a simulator
 * whose metrics quota is `quota` (the collector's too).
 */
async function setup(quota: { calls: number; periodMs: number }, lookback: string, metrics = {}) {
  const sim = await startSimulator({ quotas: { ...NO_QUOTAS, metrics: quota }, world: { accounts: ACCOUNTS } });
  const dir = mkdtempSync(join(tmpdir(), 'pass-turns-'));
  const config = configFor(
    sim,
    { type: 'file', path: join(dir, 'out.lp') },
    { jobs: onlyJobs({ metrics }), state: { dir: join(dir, 'state'), initialLookback: lookback } },
  );
  const rt = await runtimeFor(config);
  open.push({ sim, rt, dir });
  return { sim, rt };
}

/**
 * Thousands of accounts make thousands of jobs: a scheduled pass starts as many of an API's jobs at once as its quota
 * sends calls in one period, and the others wait their turn holding no plan, no client and no call in the limiter
 * (where each queued call held its pass's closures: hundreds of megabytes for 2,000 accounts).
 */
describe("a pass's jobs take turns by the quota", () => {
  it('the limiter holds at most one quota period of calls, however many jobs wait', async () => {
    const { rt } = await setup({ calls: 3, periodMs: 3_600_000 }, '1h');
    expect(rt.collector.jobs.length).toBe(2 * ACCOUNTS);
    const pass = rt.collector.tick();
    const limiter = rt.limiters.get('metrics');
    // The quota's 3 calls are made; every job's next call now waits for the hour to pass.
    await expect.poll(() => limiter.snapshot().recentCompletions, { timeout: 20_000 }).toBe(3);
    await expect.poll(() => limiter.snapshot().queued, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(limiter.snapshot().queued).toBeLessThanOrEqual(3);
    await stopCollecting(rt);
    // The stop ends the passes under way and the waiting ones alike; only the quota's calls brought a span.
    const results = await pass;
    expect(results.filter((r) => r.spans > 0).length).toBeLessThanOrEqual(3);
  });

  it("a long catch-up takes turns with the other jobs' windows instead of holding its turn to the end", async () => {
    // One call at a time: one job's pass runs at once. Every job but the first is caught up but for its newest window.
    const metrics = { window: '1m', delay: '1s', byResource: false };
    const { rt } = await setup({ calls: 1, periodMs: 100 }, '40m', metrics);
    const [behind, ...current] = rt.collector.jobs;
    for (const job of current) {
      // The daemon's gap filling of these starts at their second newest window, which is collected.
      const collected = rt.collector.pending(job).at(-2)!;
      await rt.store.setOrigin(job.key, collected.from);
      await rt.store.confirm(job.key, collected);
    }
    // Seen at the pass's start: with 1-minute windows, one may fall due while the pass runs, and is the next pass's.
    const startedAt = Date.now();
    const pendingAtStart = (job: CollectJob) => rt.collector.pending(job, undefined, startedAt);
    const pass = rt.collector.tick();
    const caughtUp = () => current.every((job) => pendingAtStart(job).length === 0);
    await expect.poll(caughtUp, { timeout: 60_000 }).toBe(true);
    // The others' windows were collected while the first job still had most of its 40 windows to go.
    expect(pendingAtStart(behind!).length).toBeGreaterThan(0);
    expect((await pass).filter((r) => r.error !== undefined)).toEqual([]);
    expect(pendingAtStart(behind!)).toEqual([]);
  });

  it('every job is still collected, within the quota: no 429, nothing left pending', async () => {
    const { sim, rt } = await setup({ calls: 10, periodMs: 200 }, '20m');
    const startedAt = Date.now();
    const results = await rt.collector.tick();
    expect(results).toHaveLength(2 * ACCOUNTS);
    expect(results.filter((r) => r.error !== undefined)).toEqual([]);
    // Seen at the pass's start: a window that became due while it ran is the next pass's.
    for (const job of rt.collector.jobs) expect(rt.collector.pending(job, undefined, startedAt), job.key).toEqual([]);
    for (const api of API_NAMES) expect(sim.stats.apis[api].quotaRejections, api).toBe(0);
    expect(sim.stats.apis.metrics.requests).toBeGreaterThanOrEqual(2 * ACCOUNTS);
  });
});
