import type { CollectorConfig } from '../../config/schema.js';
import { statisticRule } from '../../plan/windows.js';
import { anyFullBucket, collectPages, fullPage } from '../paging.js';
import { fixedLengthMs, parseGranularity } from '../granularity.js';
import type { CollectJob } from '../types.js';
import { StatisticClient } from './client.js';
import type { StatisticGrouping } from './params.js';
import { timesGroupedToPoints, timesToPoints } from './points.js';

/**
 * Traffic statistics: one job per account and grouping, read through the `/times…` endpoints so one call covers a
 * whole span of buckets (5 calls/min go a long way), and only once the buckets are final (`lag` after they end).
 */
export function statisticJobs(config: CollectorConfig): CollectJob[] {
  const c = config.jobs.statistic;
  if (!c.enabled) return [];
  // checkConfig has validated the granularity as fixed-length.
  const stepMs = fixedLengthMs(parseGranularity(c.granularity)!)!;
  const rule = statisticRule(stepMs, c.lag, c.span);
  return config.accounts.flatMap((account) =>
    c.groupings.map(
      (grouping): CollectJob => ({
        key: `statistic/${account}/${grouping}`,
        api: 'statistic',
        rule,
        backfill: true,
        callsPerSpan: 1,
        collect: async (span, http) => {
          const client = new StatisticClient(http, { language: config.api.language });
          const q = { account, start: span.from, end: span.to, granularity: c.granularity };
          if (grouping === 'total') {
            // offset/limit of /times page the buckets themselves.
            return collectPages(async (offset, limit) => (await client.times({ ...q, offset, limit })).body, timesToPoints, fullPage);
          }
          const g = grouping as StatisticGrouping;
          return collectPages(
            async (offset, limit) => (await client.timesGrouped(g, { ...q, offset, limit })).body,
            (body) => timesGroupedToPoints(g, body),
            anyFullBucket,
          );
        },
      }),
    ),
  );
}
