import type { HttpClient } from '../../http/client.js';
import { streamstatRule } from '../../plan/windows.js';
import type { Point } from '../../points.js';
import type { StreamstatGranularity, StreamstatGrouping } from '../../spec/streamstat.js';
import { collectPages, largestBucket, pageParams, pagedCalls, SINGLE_CALL } from '../paging.js';
import type { CollectJob, JobContext, Span } from '../types.js';
import { StreamstatClient } from './client.js';
import { timesGroupedToPoints, timesToPoints } from './points.js';
import { stepMs, type StreamstatSettings } from './settings.js';

/**
 * Stream views: one job per account and grouping. A call covers a whole span of buckets (`granularity` set), so a
 * day of 5-minute buckets costs one call, not 288, within the 30 calls/min.
 */
/** `language` only when configured: no tag or field of stream views depends on it. */
export function streamstatJobs(c: StreamstatSettings, { accounts, language, pageSize }: JobContext): CollectJob[] {
  if (!c.enabled) return [];
  const rule = streamstatRule(stepMs(c), c.lag, c.span);
  return accounts.flatMap((account) =>
    c.groupings.map(
      (grouping): CollectJob => ({
        key: `streamstat/${account}/${grouping}`,
        api: 'streamstat',
        rule,
        checkpointed: true,
        // Only the grouped reads are paged (the limit applies per bucket, to groups not known in advance).
        callsFor: () => (grouping === 'total' ? SINGLE_CALL : pagedCalls(0, pageSize)),
        collect: (span, http) =>
          collectViews(http, new StreamstatClient(http, language ? { language } : {}), account, grouping, c.granularity, span, pageSize),
      }),
    ),
  );
}

async function collectViews(
  http: HttpClient,
  client: StreamstatClient,
  account: string,
  grouping: 'total' | StreamstatGrouping,
  granularity: StreamstatGranularity,
  span: Span,
  pageSize: number,
): Promise<Point[]> {
  const q = { account, start: span.from, end: span.to, granularity };
  if (grouping === 'total') return timesToPoints(await client.times(q), { account });
  const g = grouping as StreamstatGrouping;
  return collectPages(http, {
    api: 'streamstat',
    endpoint: `/${g}`,
    fetchPage: (offset, limit) => client.timesGrouped(g, { ...q, ...pageParams(offset, limit) }),
    toPoints: (body) => timesGroupedToPoints(g, body, { account }),
    rows: largestBucket,
  }, pageSize);
}


