import type { FieldSchema, MeasurementSchema } from '../../points.js';
import type { StreamstatField, StreamstatGrouping } from '../../spec/streamstat.js';

/**
 * Stream view statistics v2, one aggregation level per measurement: `cdn_views` holds one point per
 * account and bucket, `cdn_views_by_<grouping>` one per group, so a query without a filter never counts a view twice.
 * Unique users do not add up over time or groups: they are read at the periods a dashboard shows (hour, day), each
 * from a call asking that period's buckets, into `cdn_users_hourly` / `cdn_users_daily` (and `_by_<grouping>`).
 */

export const VIEWS_MEASUREMENT = 'cdn_views';

/** The periods unique users are counted over: a call with this granularity, its own measurement. */
export const UNIQUES_PERIODS = ['PT1H', 'P1D'] as const;
export type UniquesPeriod = (typeof UNIQUES_PERIODS)[number];
const PERIOD_WORD: Record<UniquesPeriod, string> = { PT1H: 'hourly', P1D: 'daily' };
const PERIOD_NOUN: Record<UniquesPeriod, string> = { PT1H: 'hour', P1D: 'day' };

/** What a read stores: views (any granularity) or the unique users of one period. */
export type ViewsSeries = { kind: 'views' } | { kind: 'users'; period: UniquesPeriod };
export const VIEWS_SERIES: ViewsSeries = { kind: 'views' };

/** The groupings with their own measurement; `accounts` (with the account filter of every job) is `cdn_views` itself.
 * */
type GroupedBy = Exclude<StreamstatGrouping, 'accounts'>;
const GROUP_TAGS: Record<GroupedBy, Record<string, string>> = {
  streams: { stream: 'stream name' },
  'stream-types': { stream_type: 'live, vod or unknown' },
  browsers: { browser: 'browser' },
  platforms: { platform: 'platform / OS' },
};
const GROUPED_BY = Object.keys(GROUP_TAGS) as GroupedBy[];

/** The API's grouping as a measurement suffix (`stream-types` → `stream_types`); none for the total and accounts. */
function suffix(grouping: 'total' | StreamstatGrouping): string {
  return grouping === 'total' || grouping === 'accounts' ? '' : `_by_${grouping.replace(/-/g, '_')}`;
}

export function viewsMeasurement(grouping: 'total' | StreamstatGrouping): string {
  return `${VIEWS_MEASUREMENT}${suffix(grouping)}`;
}

export function usersMeasurement(period: UniquesPeriod, grouping: 'total' | StreamstatGrouping): string {
  return `cdn_users_${PERIOD_WORD[period]}${suffix(grouping)}`;
}

export function measurementOf(series: ViewsSeries, grouping: 'total' | StreamstatGrouping): string {
  return series.kind === 'views' ? viewsMeasurement(grouping) : usersMeasurement(series.period, grouping);
}

/** The API fields a read asks for and stores: views never carry users (it is not additive), users nothing else. */
export function fieldsOf(series: ViewsSeries): readonly StreamstatField[] {
  return series.kind === 'views' ? ['views', 'views_max'] : ['users'];
}

/** The field a value of the API is stored as: `users` is an InfluxQL keyword (SHOW USERS), so it is stored as
 * `unique_users`. */
export const STORED_FIELD: Readonly<Record<StreamstatField, string>> = {
  views: 'views',
  views_max: 'views_max',
  users: 'unique_users',
};

const VIEWS_FIELDS: Record<string, FieldSchema> = {
  views: {
    type: 'integer',
    description: 'views observed in the bucket',
    unit: 'views',
    aggregate: 'sum',
    nonNegative: true,
  },
  views_max: {
    type: 'integer',
    description: 'peak simultaneous views in the bucket',
    unit: 'views',
    aggregate: 'max',
    nonNegative: true,
  },
};

function usersFields(period: UniquesPeriod): Record<string, FieldSchema> {
  const noun = PERIOD_NOUN[period];
  return {
    [STORED_FIELD.users]: {
      type: 'integer',
      description:
        `unique users (IP + User-Agent) over the ${noun}, as the API counts them for a ${noun} (its ` +
        `\`users\`); never summed over ${noun}s or groups`,
      unit: 'users',
      aggregate: 'last',
      nonNegative: true,
    },
  };
}

const ACCOUNT_TAG = { account: 'account name (the account filter of the call)' };
const SOURCE = 'GET /app/streamstat/v2/';

function groupedSource(grouping: GroupedBy): string {
  return `GET /app/streamstat/v2/${grouping}`;
}

function viewsSchemas(): MeasurementSchema[] {
  return [
    {
      name: VIEWS_MEASUREMENT,
      description:
        'Stream views and peak simultaneous views, one point per account and bucket (also what /accounts answers)',
      source: `${SOURCE} with granularity (or one call per bucket), and /accounts`,
      tags: ACCOUNT_TAG,
      fields: VIEWS_FIELDS,
      query:
        `SELECT sum("views") AS "views", max("views_max") AS "peak" FROM "cdn_views" WHERE "account" = 'acme' ` +
        `AND time > now() - 1d GROUP BY time(1h)`,
    },
    ...GROUPED_BY.map((g): MeasurementSchema => {
      const [tag] = Object.keys(GROUP_TAGS[g]);
      return {
        name: viewsMeasurement(g),
        description: `Stream views and peak simultaneous views per ${tag}, account and bucket`,
        source: `${groupedSource(g)} with granularity (or one call per bucket)`,
        tags: { ...ACCOUNT_TAG, ...GROUP_TAGS[g] },
        fields: VIEWS_FIELDS,
        query:
          `SELECT sum("views") FROM "${viewsMeasurement(g)}" WHERE "account" = 'acme' AND time > now() - 1d ` +
          `GROUP BY time(1h), "${tag}"`,
      };
    }),
  ];
}

function usersSchemas(period: UniquesPeriod): MeasurementSchema[] {
  const noun = PERIOD_NOUN[period];
  const interval = period === 'PT1H' ? '1h' : '1d';
  const total = usersMeasurement(period, 'total');
  return [
    {
      name: total,
      description:
        `Unique users per account and ${noun}, counted by the API over the ${noun} (granularity ` +
        `${period}). Read it at this period; for another period use its own measurement`,
      source: `${SOURCE} with granularity ${period} (or one call per ${noun})`,
      tags: ACCOUNT_TAG,
      fields: usersFields(period),
      query:
        `SELECT last("unique_users") FROM "${total}" WHERE "account" = 'acme' AND time > now() - 7d GROUP BY ` +
        `time(${interval})`,
    },
    ...GROUPED_BY.map((g): MeasurementSchema => {
      const [tag] = Object.keys(GROUP_TAGS[g]);
      const name = usersMeasurement(period, g);
      return {
        name,
        description:
          `Unique users per ${tag}, account and ${noun} (granularity ${period}); a user may count in ` +
          `several groups`,
        source: `${groupedSource(g)} with granularity ${period} (or one call per ${noun})`,
        tags: { ...ACCOUNT_TAG, ...GROUP_TAGS[g] },
        fields: usersFields(period),
        query:
          `SELECT last("unique_users") FROM "${name}" WHERE "account" = 'acme' AND time > now() - 7d GROUP BY ` +
          `time(${interval}), "${tag}"`,
      };
    }),
  ];
}

export const streamstatMeasurements: MeasurementSchema[] = [
  ...viewsSchemas(),
  ...UNIQUES_PERIODS.flatMap(usersSchemas),
];
