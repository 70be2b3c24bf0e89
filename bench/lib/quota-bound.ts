/**
 * The least calls the API rules allow for a backfill of `range`, per API, computed from the configuration, the range
 * and the rows the server answered — not from the planner (bench/quota.ts compares the two):
 * - metrics: one 1–10 minute period per call (spec 001), so ⌈range ÷ 10 min⌉ per job (account × aggregate/by-resource);
 * - statistic (spec 002 A): a call may cover any range; `/times` pages its buckets (⌈buckets ÷ page size⌉), a grouped
 *   read pages the groups of each bucket (⌈groups ÷ page size⌉) and carries buckets × groups rows, which the body cap
 * bounds, and the memory bound of one answer with it (⌈rows ÷ rowsPerCall⌉, src/paging/row-budget.ts). Totals of two
 * or more accounts are one `/times/accounts` job;
 * - streamstat (spec 002 B): the same, per account, grouping and series (views, each uniques period); the total is not
 *   paged (rows = buckets).
 * `groups` is the largest bucket the server answered per API (ServerPaging), an upper bound of every job's groups.
 */
import { DEFAULT_MAX_BODY_BYTES } from '../../src/http/body.js';
import type { CollectorConfig } from '../../src/config/schema.js';
import type { Span } from '../../src/sources/common/types.js';
import { rowsPerCall } from '../../src/paging/row-budget.js';
import { stepMs as statisticStepMs } from '../../src/sources/statistic/settings.js';
import { stepMs as streamstatStepMs, uniquesStepMs } from '../../src/sources/streamstat/settings.js';
import type { ApiName } from '../../src/spec/apis.js';
import { MINUTE } from '../../src/time.js';

const METRICS_MAX_PERIOD_MS = 10 * MINUTE;

export function lowerBound(
  config: CollectorConfig,
  accounts: readonly string[],
  range: Span,
  groups: (api: ApiName) => number,
): Partial<Record<ApiName, number>> {
  const { metrics, statistic, streamstat } = config.jobs;
  const pageSize = config.api.pageSize;
  const rangeMs = range.to - range.from;
  const bodyCap = config.api.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const buckets = (step: number) => Math.floor(range.to / step) - Math.ceil(range.from / step);
  const grouped = (api: ApiName, step: number) => {
    const g = Math.max(1, groups(api));
    return Math.max(1, Math.ceil(g / pageSize), Math.ceil((buckets(step) * g) / rowsPerCall(bodyCap)));
  };
  const out: Partial<Record<ApiName, number>> = {};
  if (metrics.enabled) {
    out.metrics = accounts.length * (metrics.byResource ? 2 : 1) * Math.ceil(rangeMs / METRICS_MAX_PERIOD_MS);
  }
  if (statistic.enabled) {
    const step = statisticStepMs(statistic);
    const total = statistic.groupings.some((g) => g === 'total' || g === 'accounts');
    const shared = total && (config.accounts === 'auto' || accounts.length >= 2);
    const others = statistic.groupings.filter((g) => g !== 'total' && g !== 'accounts');
    const perAccount = others.reduce((n, g) => n + (g === 'paths' ? 0 : 1), 0);
    const paths = accounts.reduce(
      (n, a) => n + (others.includes('paths') ? (statistic.paths.hosts[a]?.length ?? 0) : 0),
      0,
    );
    const totals = !total
      ? 0
      : shared
        ? grouped('statistic', step)
        : accounts.length * Math.max(1, Math.ceil(buckets(step) / pageSize));
    out.statistic = totals + (accounts.length * perAccount + paths) * grouped('statistic', step);
  }
  if (streamstat.enabled) {
    const steps = [streamstatStepMs(streamstat), ...streamstat.uniques.map(uniquesStepMs)];
    const perGrouping = (g: string) =>
      steps.reduce((n, step) => n + (g === 'total' ? 1 : grouped('streamstat', step)), 0);
    out.streamstat = accounts.length * streamstat.groupings.reduce((n, g) => n + perGrouping(g), 0);
  }
  return out;
}
