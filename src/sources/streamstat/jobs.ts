import { streamstatRule } from '../../plan/windows.js';
import type { StreamstatGranularity } from '../../spec/streamstat.js';
import type { CollectJob, JobContext } from '../common/types.js';
import { groupedSpanBuckets, rowsPerCall, spanForRows } from '../../paging/row-budget.js';
import { StreamstatClient } from './client.js';
import { usersMeasurement, VIEWS_SERIES, type UniquesPeriod, type ViewsSeries } from './measurements.js';
import { viewsCalls, readViews, type ViewsRead } from './read.js';
import { stepMs, uniquesStepMs, type StreamstatSettings } from './settings.js';
import { ServerPaging } from '../../paging/server-paging.js';
import { StreamstatShape } from './shape.js';

/**
 * Stream views: per account and grouping, one job for views (in buckets of `granularity`) and one per uniques period
 * (unique users, read in buckets of that period once each is over plus `lag`). A call covers a whole span of buckets
 * (`granularity` set), so a day of 5-minute buckets costs one call, not 288, within the 30 calls/min — unless the
 * service answers without buckets (see read.ts): then every job of the context reads one call per bucket.
 * `language` only when configured: no tag or field of stream views depends on it.
 */
export function streamstatJobs(
  c: StreamstatSettings,
  { accounts, language, pageSize, rowBudget: budgets, paging }: JobContext,
  streamstatShape?: StreamstatShape,
): CollectJob[] {
  if (!c.enabled) return [];
  const shape = streamstatShape ?? new StreamstatShape();
  // The runtime's paging knowledge (the registry always gives one); jobs built by hand share their own.
  const known = paging ?? new ServerPaging();
  const rowBudget = budgets?.streamstat ?? rowsPerCall();
  // Spans as wide as `span` allows (a cap): a grouped read's limit per bucket keeps its rows in budget (row-budget.ts).
  const viewsRule = streamstatRule(
    stepMs(c),
    c.lag,
    spanForRows(stepMs(c), groupedSpanBuckets(pageSize, rowBudget), c.span),
  );
  return accounts.flatMap((account) =>
    c.groupings.flatMap((grouping): CollectJob[] => {
      const job = (
        key: string,
        rule: CollectJob['rule'],
        granularity: StreamstatGranularity,
        series: ViewsSeries,
      ): CollectJob => {
        const read: Omit<ViewsRead, 'http' | 'client'> = {
          account,
          grouping,
          granularity,
          series,
          pageSize,
          rowBudget,
          shape,
          key,
          paging: known,
        };
        return {
          key,
          api: 'streamstat',
          account,
          rule,
          checkpointed: true,
          callsFor: (span) => viewsCalls(read, span),
          collect: (span, http) =>
            readViews({ ...read, http, client: new StreamstatClient(http, language ? { language } : {}) }, span),
        };
      };
      const base = `streamstat/${account}/${grouping}`;
      return [
        job(base, viewsRule, c.granularity, VIEWS_SERIES),
        ...c.uniques.map((period) =>
          job(`${base}/${usersKey(period)}`, uniquesRule(c, period, groupedSpanBuckets(pageSize, rowBudget)), period, {
            kind: 'users',
            period,
          }),
        ),
      ];
    }),
  );
}

/** `users_hourly` / `users_daily`: the measurement's own word for its period. */
function usersKey(period: UniquesPeriod): string {
  return usersMeasurement(period, 'total').replace(/^cdn_/, '');
}

/** Buckets of the period, read `lag` after each ends; a call spans at least one period, else `span` rounded up to whole
 * periods. */
function uniquesRule(c: StreamstatSettings, period: UniquesPeriod, spanBuckets: number): CollectJob['rule'] {
  const step = uniquesStepMs(period);
  return streamstatRule(step, c.lag, spanForRows(step, spanBuckets, Math.ceil(c.span / step) * step));
}
