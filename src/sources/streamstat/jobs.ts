import type { CollectorConfig } from '../../config/schema.js';
import type { HttpClient } from '../../http/client.js';
import { streamstatRule } from '../../plan/windows.js';
import type { Point } from '../../points.js';
import { fixedLengthMs } from '../../spec/granularity.js';
import { streamstatGranularity, type StreamstatGranularity, type StreamstatGrouping } from '../../spec/streamstat.js';
import { collectPages, largestBucket } from '../paging.js';
import type { CollectJob, Span } from '../types.js';
import { StreamstatClient } from './client.js';
import { timesGroupedToPoints, timesToPoints } from './points.js';

/**
 * Stream views: one job per account and grouping. A call covers a whole span of buckets (`granularity` set), so a
 * day of 5-minute buckets costs one call, not 288, within the 30 calls/min.
 */
export function streamstatJobs(config: CollectorConfig): CollectJob[] {
  const c = config.jobs.streamstat;
  if (!c.enabled) return [];
  const granularity = c.granularity as StreamstatGranularity;
  // The config allows only fixed-length granularities (PT1M…P1D), which epoch-aligned windows can follow.
  const rule = streamstatRule(fixedLengthMs(streamstatGranularity(granularity))!, c.lag, c.span);
  return config.accounts.flatMap((account) =>
    c.groupings.map(
      (grouping): CollectJob => ({
        key: `streamstat/${account}/${grouping}`,
        api: 'streamstat',
        rule,
        backfill: true,
        callsPerSpan: 1,
        collect: (span, http) => collectViews(http, new StreamstatClient(http, { language: config.api.language }), account, grouping, granularity, span),
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
): Promise<Point[]> {
  const q = { account, start: span.from, end: span.to, granularity };
  if (grouping === 'total') return timesToPoints(await client.times(q), { account });
  const g = grouping as StreamstatGrouping;
  return collectPages(http, {
    api: 'streamstat',
    endpoint: `/${g}`,
    fetchPage: (offset, limit) => client.timesGrouped(g, { ...q, offset, limit }),
    toPoints: (body) => timesGroupedToPoints(g, body, { account }),
    rows: largestBucket,
  });
}


