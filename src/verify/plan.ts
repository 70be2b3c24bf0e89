import type { CollectorConfig } from '../config/schema.js';
import type { StatisticGrouping } from '../spec/statistic.js';
import type { UniquesPeriod } from '../sources/streamstat/measurements.js';
import type { StreamstatGrouping } from '../spec/streamstat.js';
import { DAY, HOUR } from '../time.js';

/** What one verification covers: the range, its windows and the configured groupings of each API. */
export interface VerifyPlan {
  from: number;
  to: number;
  /** DAY or HOUR: the provider's P1D / PT1H buckets. */
  windowMs: number;
  accounts: readonly string[];
  language: 'en' | 'ru' | undefined;
  pageSize: number;
  statistic?: {
    /** Configured groupings that write the per-account measurement (`total`, `accounts`), read from `/times/accounts`.
     * */
    totals: Array<'total' | 'accounts'>;
    groupings: Array<Exclude<StatisticGrouping, 'accounts'>>;
    pathHosts: Record<string, string[]>;
  };
  streamstat?: {
    totals: Array<'total' | 'accounts'>;
    groupings: Array<Exclude<StreamstatGrouping, 'accounts'>>;
    /** Every configured grouping as its jobs name it (the uniques are read per account and grouping). */
    allGroupings: Array<'total' | StreamstatGrouping>;
    /** Periods of unique users collected (cdn_users_hourly, cdn_users_daily). */
    uniques: UniquesPeriod[];
  };
}

/** The options of an API client that reads for the plan: its language, when it names one. */
export function clientOptions(plan: VerifyPlan): { language?: VerifyPlan['language'] } {
  return plan.language ? { language: plan.language } : {};
}

/** The window of a range: whole days when it is made of days, else whole hours (anything else is refused). */
export function windowOf(from: number, to: number): number | undefined {
  if (from % DAY === 0 && to % DAY === 0) return DAY;
  if (from % HOUR === 0 && to % HOUR === 0) return HOUR;
  return undefined;
}

const isTotal = (g: string): g is 'total' | 'accounts' => g === 'total' || g === 'accounts';

/** The plan of [from, to) for the configured sources and `accounts` (the config's, or the discovered ones). */
export function planVerify(
  config: CollectorConfig,
  accounts: readonly string[],
  from: number,
  to: number,
  windowMs: number,
): VerifyPlan {
  const { statistic, streamstat } = config.jobs;
  return {
    from,
    to,
    windowMs,
    accounts,
    language: config.api.language,
    pageSize: config.api.pageSize,
    ...(statistic.enabled
      ? {
          statistic: {
            totals: statistic.groupings.filter(isTotal),
            groupings: statistic.groupings.filter((g): g is Exclude<StatisticGrouping, 'accounts'> => !isTotal(g)),
            pathHosts: statistic.paths.hosts,
          },
        }
      : {}),
    ...(streamstat.enabled
      ? {
          streamstat: {
            totals: streamstat.groupings.filter(isTotal),
            groupings: streamstat.groupings.filter((g): g is Exclude<StreamstatGrouping, 'accounts'> => !isTotal(g)),
            allGroupings: streamstat.groupings,
            uniques: streamstat.uniques,
          },
        }
      : {}),
  };
}
