import { presentTags, type Point } from '../../points.js';
import type { StatisticGrouping } from '../../spec/statistic.js';
import { toMs } from '../../time.js';
import { TRAFFIC_MEASUREMENT } from './measurements.js';
import type { StatisticGrouped, StatisticRow, StatisticTimes, StatisticTimesGrouped, StatisticTotal } from './schemas.js';

/** Keys of a row or of the envelope's echoed filters that become tags (account and service are handled apart). */
const KEY_TAGS = [
  'country',
  'country_name',
  'region',
  'region_name',
  'browser',
  'platform',
  'referrer',
  'code',
  'custom',
  'resource',
  'resource_name',
  'host',
  'path',
] as const;
const VALUE_FIELDS = ['traffic', 'hits', 'cache_ratio', 'bandwidth'] as const;

type Values = Partial<Record<(typeof VALUE_FIELDS)[number], number>>;
type Keyed = Partial<Record<(typeof KEY_TAGS)[number] | 'account', string | number | null | undefined>>;
type Envelope = Keyed & { service?: string | undefined };

/** `/times`: one point per bucket, at the bucket start. */
export function timesToPoints(body: StatisticTimes): Point[] {
  return body.result.map((bucket) => point('total', bucket.start, body, {}, bucket));
}

/** `/times/<grouping>`: one point per bucket and group, at the bucket start. */
export function timesGroupedToPoints(grouping: StatisticGrouping, body: StatisticTimesGrouped): Point[] {
  return body.result.flatMap((bucket) => bucket.result.map((row) => point(grouping, bucket.start, body, row, row)));
}

/** `/`: one point at the window start. */
export function totalToPoints(body: StatisticTotal): Point[] {
  return [point('total', body.start, body, {}, body)];
}

/** `/<grouping>`: one point per group at the window start. */
export function groupedToPoints(grouping: StatisticGrouping, body: StatisticGrouped): Point[] {
  return body.result.map((row) => point(grouping, body.start, body, row, row));
}

/**
 * Tags: the call's echoed filters, overridden by the row's keys (so filtered series stay apart from unfiltered ones);
 * `account` and `service` are `all` when neither the row nor the call fixed them.
 */
function point(grouping: string, start: string, envelope: Envelope, row: Keyed | StatisticRow, values: Values): Point {
  const keys = Object.fromEntries(KEY_TAGS.map((key) => [key, (row as Keyed)[key] ?? envelope[key]]));
  const tags: Record<string, string> = {
    account: 'all',
    grouping,
    service: 'all',
    ...presentTags({ account: row.account ?? envelope.account, service: envelope.service }),
    ...presentTags(keys),
  };
  const fields: Record<string, number> = {};
  for (const f of VALUE_FIELDS) if (values[f] !== undefined) fields[f] = values[f];
  // The schemas already checked that `start` parses.
  return { measurement: TRAFFIC_MEASUREMENT, tags, fields, time: toMs(start) };
}
