import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { fakeCollector, fakeJob, MIN } from '../helpers/fake-job.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A collector of one fake job of one-minute windows (no delay) whose every span fails, started 30 s into a minute. */
async function failingForever() {
  const dir = mkdtempSync(join(tmpdir(), 'lag-'));
  dirs.push(dir);
  const c = await fakeCollector(dir, () => new Error('API down'));
  c.clock.advance(30_000);
  return c;
}

describe('the lag of a job that has confirmed nothing', () => {
  it('runs from the first window due after the job joined, through failed passes; /healthz turns lagging', async () => {
    const { collector, job, telemetry, clock, close } = await failingForever();
    const joined = clock.now() - 30_000; // the collector was made at the minute; the next window starts there
    expect(collector.state.lagMs(job)).toBe(30_000);
    // Listed by /healthz before any pass ended.
    expect(telemetry.jobsAt().map((j) => j.key)).toEqual([job.key]);
    for (let minute = 0; minute < 10; minute++) {
      expect((await collector.tick())[0]!.error).toMatch(/API down/);
      clock.advance(MIN);
    }
    expect(collector.state.lagMs(job)).toBe(clock.now() - joined);
    const health = evaluateHealth(telemetry, { maxLagMs: 3 * MIN });
    expect(health.jobs[job.key]).toEqual({
      lagSeconds: (clock.now() - joined) / 1000,
      maxLagSeconds: 4 * 60,
      ok: false,
    });
    await close();
  });

  it('of a job added later (a discovered account) runs from when it was added', async () => {
    const { collector, clock, close } = await failingForever();
    clock.advance(2 * MIN);
    const [later] = collector.addJobs([{ ...fakeJob(() => 1), key: 'fake/later' }]);
    clock.advance(MIN);
    expect(collector.state.lagMs(later!)).toBe(MIN + 30_000);
    await close();
  });
});
