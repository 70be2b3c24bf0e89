/**
 * How many rows one response may carry (spans sized by the rows a call returns, not by a fixed day).
 *
 * The statistic and stream view APIs put no limit on a call's time range (spec 002; the simulator refuses only more
 * than 50,000 buckets), so what bounds one call is the HTTP layer's body cap (src/http/body.ts, `api.maxBodyBytes`):
 * a grouped read of B buckets with a limit of L groups per bucket answers at most B × L rows. Sizing the limit per
 * call to the budget keeps every answer inside the cap whatever the groups number, and a whole range then costs
 * ⌈rows ÷ budget⌉ calls at least — the same as any other cut, without one call per day.
 */
import { DEFAULT_MAX_BODY_BYTES } from '../http/body.js';
import { DEFAULT_MAX_PAGES } from './server-paging.js';
import type { ApiName } from '../spec/apis.js';

/**
 * Bytes one grouped row takes at most, its share of the bucket's `start`/`end` included: the simulator's rows measure
 * 100–161 bytes (a `/times/resources` row with its name the longest); 256 leaves room for longer names and keys.
 */
export const BYTES_PER_ROW = 256;

/**
 * Rows one answer carries at most, whatever the body cap: a parsed row and the point made of it take ~1 KB of heap, and
 * up to 5 statistic calls may be in flight, so 32,768 rows (~8 MiB of body, ~40 MB parsed for a moment) keep a
 * catch-up after days of downtime inside the daemon's memory bound. A 7-day hourly read of 500 resources (84,000 rows)
 * is then 3 calls rather than 1 — still a fraction of one call per day. Lower `api.maxBodyBytes` lowers it further.
 */
export const MAX_ROWS_PER_CALL = 32_768;

/** Rows one answer may carry inside a body cap of `maxBodyBytes` (default 32 MiB ÷ 256 B, capped at MAX_ROWS_PER_CALL).
 * */
export function rowsPerCall(maxBodyBytes = DEFAULT_MAX_BODY_BYTES): number {
  return Math.max(1, Math.min(MAX_ROWS_PER_CALL, Math.floor(maxBodyBytes / BYTES_PER_ROW)));
}

/**
 * The `limit` (groups per bucket) of a grouped read over `buckets` buckets: the page size, lowered so that buckets ×
 * limit rows stay within the budget. A range with more groups than that is paged (offset), never cut into more spans.
 */
export function bucketLimit(buckets: number, pageSize: number, budget = rowsPerCall()): number {
  return Math.max(1, Math.min(pageSize, Math.floor(budget / Math.max(1, buckets))));
}

/**
 * The widest span (ms) of a read whose rows are its buckets, one row each: `rowsPerSpan` buckets of `stepMs`, but no
 * wider than `capMs` (the configured `span`) and at least one bucket. Whole buckets, so the rule stays aligned.
 */
export function spanForRows(stepMs: number, rowsPerSpan: number, capMs: number): number {
  return Math.max(stepMs, Math.min(capMs, Math.floor(rowsPerSpan) * stepMs));
}

/**
 * The most buckets a grouped read's span may hold: however many groups the buckets have (up to the page size each),
 * its pages stay within half of `api.maxPages` (default 200), so a wide span is paged through rather than failed
 * with too many pages. 3,276 buckets at the defaults (11 days of PT5M, 2¼ days of PT1M, 136 days of PT1H).
 */
export function groupedSpanBuckets(pageSize: number, budget = rowsPerCall()): number {
  return Math.max(1, Math.floor((budget * (DEFAULT_MAX_PAGES / 2)) / Math.max(1, pageSize)));
}

/** The row budget of the paged APIs under the configured body caps (`api.maxBodyBytes`, `maxBodyBytesPerApi`). */
export function rowBudgets(api: {
  maxBodyBytes?: number;
  maxBodyBytesPerApi?: Partial<Record<ApiName, number | undefined>>;
}): Partial<Record<ApiName, number>> {
  const cap = (name: ApiName) =>
    rowsPerCall(api.maxBodyBytesPerApi?.[name] ?? api.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  return { statistic: cap('statistic'), streamstat: cap('streamstat') };
}
