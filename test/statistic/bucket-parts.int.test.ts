import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Point } from '../../src/points.js';
import { bucketLimit, BYTES_PER_ROW, rowsPerCall } from '../../src/paging/row-budget.js';
import { HAND_OFF_POINTS } from '../../src/paging/walk.js';
import { HOUR } from '../../src/time.js';
import { resourcesRuntime } from '../helpers/big-account.js';
import { useSimulator } from '../helpers/sim.js';

const RESOURCES = 2000;
/** A body cap whose row budget (16,384 rows) makes one answer of an hour's 12 buckets larger than one hand-over. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const BUCKETS = 12;
const to = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
const dir = mkdtempSync(join(tmpdir(), 'bucket-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Memory of a big account, within one answer: a grouped answer of a wide span carries up to its row budget of rows
 * (32,768 by default). It is read bucket by bucket as it arrives (no text larger than a bucket is parsed: not the
 * answer's text, parse tree and validated copy at once), and its points are made and handed to the sink a few buckets
 * at a time, never the whole answer's points at once.
 */
describe('a grouped statistic answer is read and written bucket by bucket', () => {
  const s = useSimulator({ quotas: { statistic: null }, world: { accounts: 1, resourcesPerAccount: RESOURCES } });

  it('no text larger than a bucket is parsed; no write holds more than a hand-over and a bucket', async () => {
    const { rt, job } = await resourcesRuntime(s.sim, dir, MAX_BODY_BYTES);
    const writes: number[] = [];
    const write = rt.sink.write.bind(rt.sink);
    vi.spyOn(rt.sink, 'write').mockImplementation((points: readonly Point[]) => {
      writes.push(points.length);
      return write(points);
    });
    const parsed: number[] = [];
    const parse = JSON.parse;
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parsed.push(text.length);
      return parse(text, reviver);
    });
    const span = { from: to - HOUR, to }; // 12 buckets of PT5M × 2,000 resources: 24,000 rows in 2 answers
    const result = await rt.collector.runOnce(job, 'backfill', span);
    const largestParsed = Math.max(...parsed);
    vi.restoreAllMocks();
    await rt.close();

    const limit = bucketLimit(BUCKETS, 1000, rowsPerCall(MAX_BODY_BYTES));
    expect(result.points).toBeGreaterThan(0.9 * BUCKETS * RESOURCES); // an idle resource has no row in a bucket
    expect(result).toMatchObject({ spans: 1, setAside: 0 });
    expect(writes.reduce((sum, n) => sum + n, 0)).toBe(result.points);
    // One answer is 12 × 1,365 rows: more than a hand-over, so it is written in parts of whole buckets.
    expect(BUCKETS * limit).toBeGreaterThan(HAND_OFF_POINTS + limit);
    expect(Math.max(...writes)).toBeLessThanOrEqual(HAND_OFF_POINTS + limit);
    // One bucket of 1,365 rows is at most ~350 KB of JSON; the answer is over 2 MB.
    expect(largestParsed).toBeLessThanOrEqual(limit * BYTES_PER_ROW);
  }, 120_000);
});
