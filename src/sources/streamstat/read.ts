import type { Requester } from '../../contracts/requester.js';
import type { Point } from '../../points.js';
import { bucketSpans } from '../../spec/granularity.js';
import { streamstatGranularity, type StreamstatGranularity, type StreamstatGrouping } from '../../spec/streamstat.js';
import type { ServerPaging } from '../../paging/server-paging.js';
import {
  collectPages,
  flatRows,
  forecastGroupedCalls,
  type PagedRead,
  largestBucket,
  pageParams,
  SINGLE_CALL,
} from '../../paging/walk.js';
import { bucketLimit } from '../../paging/row-budget.js';
import type { Span, SpanCalls } from '../common/types.js';
import type { StreamstatClient } from './client.js';
import { fieldsOf, type ViewsSeries } from './measurements.js';
import { groupedToPoints, timesGroupedToPoints, timesToPoints, totalToPoints } from './points.js';
import { UnbucketedAnswerError, type StreamstatShape } from './shape.js';

/**
 * One stream views job's read: an account, a grouping (or the total) in buckets of `granularity`, for `series`: views
 * (at the configured granularity) or the unique users of a period (granularity = that period: the API counts uniques
 * over each bucket asked).
 */
export interface ViewsRead {
  http: Requester;
  client: StreamstatClient;
  account: string;
  grouping: 'total' | StreamstatGrouping;
  granularity: StreamstatGranularity;
  series: ViewsSeries;
  pageSize: number;
  /** Rows one answer may carry (row-budget.ts; default the 32 MiB cap's): a wide span's limit per bucket is lowered to
   * it. */
  rowBudget?: number;
  shape: StreamstatShape;
  /** The job's key, under which paging remembers the read's rows, and what paging learnt (to forecast its pages). */
  key?: string;
  paging: ServerPaging;
}

/**
 * A span's points, whichever shape the service answers: one call with `granularity` while it answers in buckets; once
 * an answer comes flat (shape.ts), one call per bucket window without `granularity`, each stamped with its bucket's
 * start — the same points. The flat answer that revealed it covers the whole span, so that span is read again.
 */
export async function readViews(r: ViewsRead, span: Span): Promise<Point[]> {
  if (!r.shape.flat) {
    try {
      return await readBucketed(r, span);
    } catch (err) {
      if (!(err instanceof UnbucketedAnswerError)) throw err;
      r.shape.markFlat(r.granularity);
    }
  }
  const points: Point[] = [];
  for (const bucket of bucketsOf(r, span)) points.push(...(await readFlat(r, bucket)));
  return points;
}

/** Calls a span costs: one (or its pages) in buckets, one per bucket (or its pages) once the service answers flat. */
export function viewsCalls(r: Omit<ViewsRead, 'http' | 'client'>, span: Span): SpanCalls {
  // Only the grouped reads are paged (the limit applies per bucket, to groups not known in advance).
  const buckets = bucketsOf(r, span).length;
  const limit = r.shape.flat ? r.pageSize : bucketLimit(buckets, r.pageSize, r.rowBudget);
  const one = r.grouping === 'total' ? SINGLE_CALL : forecastGroupedCalls(r.paging, 'streamstat', r.key, limit);
  return r.shape.flat ? { ...one, least: one.least * buckets, most: one.most * buckets } : one;
}

function bucketsOf(r: Pick<ViewsRead, 'granularity'>, span: Span): Span[] {
  return bucketSpans(span.from, span.to, streamstatGranularity(r.granularity));
}

async function readBucketed(r: ViewsRead, span: Span): Promise<Point[]> {
  const q = {
    account: r.account,
    start: span.from,
    end: span.to,
    granularity: r.granularity,
    fields: fieldsOf(r.series),
  };
  const tags = { account: r.account };
  if (r.grouping === 'total') return timesToPoints(await r.client.times(q), tags, r.series);
  const g = r.grouping;
  // The limit applies per bucket: lowered for a wide span so the answer stays within the row budget (row-budget.ts).
  return pagedViews(r, g, bucketLimit(bucketsOf(r, span).length, r.pageSize, r.rowBudget), {
    fetchPage: (offset, limit) => r.client.timesGrouped(g, { ...q, ...pageParams(offset, limit) }),
    toPoints: (body) => timesGroupedToPoints(g, body, tags, r.series),
    rows: largestBucket,
  });
}

async function readFlat(r: ViewsRead, bucket: Span): Promise<Point[]> {
  const q = { account: r.account, start: bucket.from, end: bucket.to, fields: fieldsOf(r.series) };
  const tags = { account: r.account };
  if (r.grouping === 'total') return totalToPoints(await r.client.total(q), tags, r.series);
  const g = r.grouping;
  return pagedViews(r, g, r.pageSize, {
    fetchPage: (offset, limit) => r.client.grouped(g, { ...q, ...pageParams(offset, limit) }),
    toPoints: (body) => groupedToPoints(g, body, tags, r.series),
    rows: flatRows,
  });
}

/** A grouping read page by page (walkPages), in either shape. */
function pagedViews<P extends { result: readonly unknown[] }>(
  r: ViewsRead,
  g: StreamstatGrouping,
  limit: number,
  read: Omit<PagedRead<P>, 'api' | 'endpoint'> & { toPoints(page: NoInfer<P>): Point[] },
): Promise<Point[]> {
  return collectPages(
    r.paging,
    { api: 'streamstat', endpoint: `/${g}`, ...read, ...(r.key !== undefined ? { key: r.key } : {}) },
    limit,
  );
}
