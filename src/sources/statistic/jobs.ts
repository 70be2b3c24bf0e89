import type { HttpClient } from '../../http/client.js';
import { provisionalSpans, statisticRule } from '../../plan/windows.js';
import type { Point } from '../../points.js';
import type { StatisticGrouping } from '../../spec/statistic.js';
import type { StatisticClientOptions } from './client.js';
import { collectPages, flatRows, largestBucket, pageParams, pagedCalls } from '../paging.js';
import type { CollectJob, JobContext, Span } from '../types.js';
import { StatisticClient } from './client.js';
import { timesGroupedToPoints, timesToPoints } from './points.js';
import { stepMs, type StatisticSettings } from './settings.js';

type Grouping = 'total' | StatisticGrouping;

/**
 * Traffic statistics: one job per account and grouping, read through the `/times…` endpoints so one call covers a
 * whole span of buckets (5 calls/min go a long way), and only once the buckets are final (`lag` after they end).
 * With `provisional`, a second job per account and grouping reads the closed but not yet final buckets early; it
 * keeps no checkpoint, and the final read later overwrites its points (same series and time).
 */
export function statisticJobs(c: StatisticSettings, { accounts, language, pageSize }: JobContext): CollectJob[] {
  if (!c.enabled) return [];
  const step = stepMs(c);
  const rule = statisticRule(step, c.lag, c.span);
  const read = (account: string, grouping: Grouping) => (span: Span, http: HttpClient) =>
    readSpan(http, new StatisticClient(http, languageFor(grouping, language)), account, grouping, c.granularity, span, pageSize);
  return accounts.flatMap((account) =>
    c.groupings.flatMap((grouping): CollectJob[] => {
      const final: CollectJob = {
        key: `statistic/${account}/${grouping}`,
        api: 'statistic',
        rule,
        checkpointed: true,
        // /times pages the span's buckets themselves (their number is known); grouped reads page groups per bucket.
        callsFor: (span) => pagedCalls(grouping === 'total' ? (span.to - span.from) / step : 0, pageSize),
        collect: read(account, grouping),
      };
      if (!c.provisional) return [final];
      const early: CollectJob = {
        ...final,
        key: `statistic-provisional/${account}/${grouping}`,
        checkpointed: false,
        currentSpans: (now) => provisionalSpans(rule, now, c.lag),
      };
      return [final, early];
    }),
  );
}

/**
 * `language` is sent only when configured, except where points carry names in it (country_name, region_name tags of
 * /regions and /countries): there it is always sent (en when unset), so a series never changes its tags with a
 * server's default or an Accept-Language added on the way.
 */
function languageFor(grouping: Grouping, language: JobContext['language']): StatisticClientOptions {
  const named = grouping === 'regions' || grouping === 'countries';
  const chosen = language ?? (named ? 'en' : undefined);
  return chosen === undefined ? {} : { language: chosen };
}

function readSpan(
  http: HttpClient,
  client: StatisticClient,
  account: string,
  grouping: Grouping,
  granularity: string,
  span: Span,
  pageSize: number,
): Promise<Point[]> {
  const q = { account, start: span.from, end: span.to, granularity };
  if (grouping === 'total') {
    // offset/limit of /times page the buckets themselves.
    return collectPages(http, {
      api: 'statistic',
      endpoint: '/times',
      fetchPage: async (offset, limit) => (await client.times({ ...q, ...pageParams(offset, limit) })).body,
      toPoints: timesToPoints,
      rows: flatRows,
    }, pageSize);
  }
  return collectPages(http, {
    api: 'statistic',
    endpoint: `/times/${grouping}`,
    fetchPage: async (offset, limit) => (await client.timesGrouped(grouping, { ...q, ...pageParams(offset, limit) })).body,
    toPoints: (body) => timesGroupedToPoints(grouping, body),
    rows: largestBucket,
  }, pageSize);
}
