import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Point } from '../../src/points.js';
import { rowsPerCall } from '../../src/paging/row-budget.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { resourcesRuntime } from '../helpers/big-account.js';
import { useSimulator } from '../helpers/sim.js';

const RESOURCES = 5000;
/** A body cap that makes one answer's row budget 4,096 rows: below one span's 10,000, so its parts are seen. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Whole hours, long final. */
const to = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
const dir = mkdtempSync(join(tmpdir(), 'span-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Memory of a big account: the rows of a grouped span grow with the account (buckets × resources), so a span's points
 * must not be held until the whole span is read. Each page's points go to the sink as they come (at most the row
 * budget of one answer); the checkpoint still waits for the last of them.
 */
describe('a span of 5,000 resources is written page by page', () => {
  const s = useSimulator({ quotas: { statistic: null }, world: { accounts: 1, resourcesPerAccount: RESOURCES } });

  it("no write holds more than one answer's row budget; the span is confirmed after its last point", async () => {
    const { rt, job } = await resourcesRuntime(s.sim, dir, MAX_BODY_BYTES);
    const writes: Array<{ points: number; confirmed: number; calls: number }> = [];
    const calls = () => s.sim.stats.apis.statistic.requests;
    const before = calls();
    const write = rt.sink.write.bind(rt.sink);
    vi.spyOn(rt.sink, 'write').mockImplementation((points: readonly Point[]) => {
      writes.push({ points: points.length, confirmed: rt.store.confirmed(job.key).length, calls: calls() - before });
      return write(points);
    });
    const span = { from: to - 10 * MINUTE, to }; // 2 buckets of PT5M: 10,000 rows
    const result = await rt.collector.runOnce(job, 'backfill', span);
    const whole = (await job.collect(span, rt.http)).length; // the same span read whole, as before
    await rt.close();

    expect(whole).toBeGreaterThan(rowsPerCall(MAX_BODY_BYTES));
    expect(result).toMatchObject({ spans: 1, points: whole });
    expect(writes.reduce((sum, w) => sum + w.points, 0)).toBe(whole);
    expect(Math.max(...writes.map((w) => w.points))).toBeLessThanOrEqual(rowsPerCall(MAX_BODY_BYTES));
    // One answer held at a time: the next page is asked for only once the previous one's points were taken.
    const parts = writes.filter((w) => w.points > 0);
    expect(parts.map((w) => w.calls)).toEqual(parts.map((_, i) => i + 1));
    expect(writes.every((w) => w.confirmed === 0)).toBe(true);
    expect(rt.store.confirmed(job.key)).toEqual([span]);
  });
});
