import { ServerPaging } from '../paging/server-paging.js';
import type { HttpClient } from '../http/client.js';
import type { Point } from '../points.js';
import type { ProviderRead } from './provider-read.js';
import type { ApiName } from '../spec/apis.js';
import type { StatisticGrouping } from '../spec/statistic.js';
import type { StreamstatGrouping } from '../spec/streamstat.js';
import { StatisticClient } from '../sources/statistic/client.js';
import { timesGroupedToPoints as statisticPoints } from '../sources/statistic/points.js';
import { StreamstatClient } from '../sources/streamstat/client.js';
import { groupedToPoints as streamstatPoints } from '../sources/streamstat/points.js';
import { DAY } from '../time.js';
import { clientOptions, type VerifyPlan } from './plan.js';
import { readUniques } from './uniques.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Points of `api` whose fields are summed per window of the plan, as the jobs `jobs(account)` wrote them. */
function sums(api: ApiName, plan: VerifyPlan, jobs: ProviderRead['jobs'], points: Point[]): ProviderRead {
  return { api, aggregate: 'sum', windowMs: plan.windowMs, jobs, points };
}

/**
 * Reads the provider's coarse totals for the plan, in the calls that cost least under the quotas:
 * - statistics: `/times/accounts` over the whole range with granularity P1D (PT1H), one call for every account
 *   (paged per 100 accounts a bucket), then `/times/<grouping>` per account (and host for paths) over the range;
 * - stream views: `/accounts` per window (every account in one call), then `/<grouping>` per account and window
 *   (flat answers: a service that ignores granularity is read the same way, see sources/streamstat/shape.ts);
 * - unique users: per account, grouping and period, in buckets of the period (uniques.ts).
 */
export async function readProvider(
  http: HttpClient,
  plan: VerifyPlan,
  paging = new ServerPaging(),
): Promise<ProviderRead[]> {
  const reads: ProviderRead[] = [];
  const options = { ...clientOptions(plan), paging };
  if (plan.statistic) reads.push(...(await readStatistic(new StatisticClient(http, options), plan, plan.statistic)));
  if (plan.streamstat)
    reads.push(...(await readStreamstat(new StreamstatClient(http, options), plan, plan.streamstat)));
  reads.push(...(await readUniques(http, plan, paging)));
  return reads;
}

/** The part of the plan that reads one API. */
type ApiPlan<A extends 'statistic' | 'streamstat'> = NonNullable<VerifyPlan[A]>;

async function readStatistic(
  client: StatisticClient,
  plan: VerifyPlan,
  s: ApiPlan<'statistic'>,
): Promise<ProviderRead[]> {
  const granularity = plan.windowMs === DAY ? 'P1D' : 'PT1H';
  const q = { start: plan.from, end: plan.to, granularity };
  const read = async (grouping: StatisticGrouping, filter: { account?: string; host?: string }): Promise<Point[]> => {
    const result = [];
    for await (const page of client.timesPages(grouping, { ...q, ...filter }, plan.pageSize)) result.push(...page);
    return statisticPoints(grouping, {
      start: iso(plan.from),
      end: iso(plan.to),
      granularity,
      ...filter,
      result: mergeBuckets(result),
    });
  };
  const reads: ProviderRead[] = [];
  if (s.totals.length > 0) {
    const jobs = (account: string) => s.totals.map((g) => `statistic/${account}/${g}`);
    reads.push(sums('statistic', plan, jobs, await read('accounts', {})));
  }
  for (const account of plan.accounts) {
    for (const grouping of s.groupings) {
      const hosts = grouping === 'paths' ? (s.pathHosts[account] ?? []) : [undefined];
      for (const host of hosts) {
        const points = await read(grouping, host === undefined ? { account } : { account, host });
        const job = `statistic/${account}/${grouping}${host === undefined ? '' : `/${host}`}`;
        reads.push(sums('statistic', plan, () => [job], points));
      }
    }
  }
  return reads;
}

/** Pages of `/times/<g>` repeat the buckets with other groups: one bucket per start, its groups together. */
function mergeBuckets<B extends { start: string; result: unknown[] }>(pages: B[]): B[] {
  const byStart = new Map<string, B>();
  for (const bucket of pages) {
    const seen = byStart.get(bucket.start);
    if (seen) seen.result.push(...bucket.result);
    else byStart.set(bucket.start, { ...bucket, result: [...bucket.result] });
  }
  return [...byStart.values()];
}

async function readStreamstat(
  client: StreamstatClient,
  plan: VerifyPlan,
  s: ApiPlan<'streamstat'>,
): Promise<ProviderRead[]> {
  const read = async (grouping: StreamstatGrouping, account: string | undefined): Promise<Point[]> => {
    const points: Point[] = [];
    for (let from = plan.from; from < plan.to; from += plan.windowMs) {
      const window = { start: from, end: from + plan.windowMs, ...(account === undefined ? {} : { account }) };
      const result = [];
      for await (const page of client.pages(grouping, window, plan.pageSize)) result.push(...page);
      const body = {
        start: iso(window.start),
        end: iso(window.end),
        ...(account === undefined ? {} : { account }),
        result,
      };
      points.push(...streamstatPoints(grouping, body, account === undefined ? {} : { account }));
    }
    return points;
  };
  const reads: ProviderRead[] = [];
  if (s.totals.length > 0) {
    const jobs = (account: string) => s.totals.map((g) => `streamstat/${account}/${g}`);
    reads.push(sums('streamstat', plan, jobs, await read('accounts', undefined)));
  }
  for (const account of plan.accounts) {
    for (const grouping of s.groupings) {
      reads.push(sums('streamstat', plan, () => [`streamstat/${account}/${grouping}`], await read(grouping, account)));
    }
  }
  return reads;
}
