import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/http/body.js';
import {
  bucketLimit,
  BYTES_PER_ROW,
  MAX_ROWS_PER_CALL,
  groupedSpanBuckets,
  rowsPerCall,
  spanForRows,
} from '../../src/paging/row-budget.js';
import { DAY, MINUTE } from '../../src/time.js';
import { groupedCalls } from '../../src/paging/walk.js';

describe('row budget: spans sized by the rows a call returns', () => {
  it('the budget is the body cap in rows, at most MAX_ROWS_PER_CALL (memory of one parsed answer)', () => {
    expect(DEFAULT_MAX_BODY_BYTES / BYTES_PER_ROW).toBeGreaterThan(MAX_ROWS_PER_CALL);
    expect(rowsPerCall()).toBe(MAX_ROWS_PER_CALL);
    expect(rowsPerCall(4 * 2 ** 20)).toBe(16_384);
    expect(rowsPerCall(1000)).toBe(3);
    expect(rowsPerCall(10)).toBe(1);
  });

  it('a grouped read keeps buckets × limit within the budget, the page size being the most', () => {
    expect(bucketLimit(24, 1000)).toBe(1000); // 2 hours of 5-minute buckets: the page size fits
    expect(bucketLimit(120, 1000)).toBe(273); // 10 hours
    expect(bucketLimit(288, 1000)).toBe(113); // a day: 113 groups a bucket per page
    expect(bucketLimit(8928, 1000)).toBe(Math.floor(rowsPerCall() / 8928)); // 31 days: 3 groups a bucket per page
    expect(bucketLimit(8928, 1000) * 8928).toBeLessThanOrEqual(rowsPerCall());
    expect(bucketLimit(1_000_000, 1000)).toBe(1);
    expect(bucketLimit(100, 1000, 1000)).toBe(10);
  });

  it('a span of flat rows is a page of buckets, never wider than the cap nor narrower than a bucket', () => {
    expect(spanForRows(5 * MINUTE, 1000, 31 * DAY)).toBe(5000 * MINUTE);
    expect(spanForRows(5 * MINUTE, 1000, DAY)).toBe(DAY);
    expect(spanForRows(DAY, 0.5, 31 * DAY)).toBe(DAY);
  });

  it('a grouped span holds no more buckets than half of maxPages pages of full buckets can carry', () => {
    expect(groupedSpanBuckets(1000)).toBe(3_276);
    // Every bucket with a full page of groups: the pages the span needs stay within 100.
    expect(Math.ceil((groupedSpanBuckets(1000) * 1000) / rowsPerCall())).toBeLessThanOrEqual(100);
    expect(groupedSpanBuckets(10)).toBe(327_680);
  });

  it('a grouped read is forecast from the rows it had: full pages, the short one, and the check of a tie', () => {
    const range = (c: { least: number; most: number }) => [c.least, c.most];
    expect(range(groupedCalls(undefined, 0, 1000))).toEqual([1, 2]); // nothing known: a page, and maybe its check
    expect(range(groupedCalls(undefined, 7, 1000))).toEqual([1, 2]);
    expect(range(groupedCalls(4, 7, 1000))).toEqual([1, 1]); // smaller than a page the API served: cannot be capped
    // As large as any (paging's largest is already the fullest read it remembers): one more page checks it.
    expect(range(groupedCalls(7, 7, 1000))).toEqual([2, 2]);
    expect(range(groupedCalls(2500, 2500, 1000))).toEqual([3, 3]); // two full pages, then a short one below 1000
    expect(range(groupedCalls(0, 7, 1000))).toEqual([1, 1]);
  });

  it('with the server cap stated (api.serverMaxLimit), no page is checked and the limit is cut to the cap', () => {
    expect(groupedCalls(undefined, 0, 1000, 1000)).toMatchObject({ least: 1, most: 2 }); // 1000 groups: the empty page
    expect(groupedCalls(7, 7, 1000, 1000)).toMatchObject({ least: 1, most: 1 }); // a tie below the cap: not capped
    expect(groupedCalls(120, 120, 1000, 50).least).toBe(3); // pages of 50, 50, then 20
    expect(groupedCalls(100, 100, 1000, 50).least).toBe(3); // two full pages of the cap, then the empty one
  });
});
