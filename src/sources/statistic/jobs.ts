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

/** What one job reads: a grouping of an account, and for `paths` the host it is filtered by (the spec requires one). */
interface Target {
  account: string;
  grouping: Grouping;
  host?: string;
}

/**
 * Traffic statistics: one job per account and grouping (per account and host for `paths`), read through the
 * `/times…` endpoints so one call covers a whole span of buckets (5 calls/min go a long way), and only once the
 * buckets are final (`lag` after they end). With `provisional`, a second job per target reads the closed but not yet
 * final buckets early; it keeps no checkpoint, and the final read later overwrites its points (same series and time).
 */
export function statisticJobs(c: StatisticSettings, { accounts, language, pageSize }: JobContext): CollectJob[] {
  if (!c.enabled) return [];
  const step = stepMs(c);
  const rule = statisticRule(step, c.lag, c.span);
  return accounts.flatMap((account) =>
    targetsOf(c, account).flatMap((target): CollectJob[] => {
      const key = [target.account, target.grouping, ...(target.host === undefined ? [] : [target.host])].join('/');
      const final: CollectJob = {
        key: `statistic/${key}`,
        api: 'statistic',
        rule,
        checkpointed: true,
        // /times pages the span's buckets themselves (their number is known); grouped reads page groups per bucket.
        callsFor: (span) => pagedCalls(target.grouping === 'total' ? (span.to - span.from) / step : 0, pageSize),
        collect: (span, http) =>
          readSpan(http, new StatisticClient(http, languageFor(target.grouping, language)), target, c.granularity, span, pageSize),
      };
      if (!c.provisional) return [final];
      const early: CollectJob = {
        ...final,
        key: `statistic-provisional/${key}`,
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

/** The account's targets: each configured grouping, `paths` once per host listed for the account (none if none). */
function targetsOf(c: StatisticSettings, account: string): Target[] {
  return c.groupings.flatMap((grouping): Target[] =>
    grouping === 'paths' ? (c.paths.hosts[account] ?? []).map((host) => ({ account, grouping, host })) : [{ account, grouping }],
  );
}

function readSpan(
  http: HttpClient,
  client: StatisticClient,
  { account, grouping, host }: Target,
  granularity: string,
  span: Span,
  pageSize: number,
): Promise<Point[]> {
  const q = { account, host, start: span.from, end: span.to, granularity };
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
