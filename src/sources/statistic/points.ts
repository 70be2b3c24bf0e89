import { presentTags, type Point } from '../../points.js';
import { KEY_TAGS, STATISTIC_KEYS, type KeyTagName, type StatisticGrouping } from '../../spec/statistic.js';
import { toMs } from '../../time.js';
import { trafficMeasurement } from './measurements.js';
import type {
  StatisticGrouped,
  StatisticGroupedBucket,
  StatisticRow,
  StatisticTimes,
  StatisticTimesGrouped,
  StatisticTotal,
} from './schemas.js';

type Values = {
  traffic?: number | undefined;
  hits?: number | undefined;
  cache_ratio?: number | undefined;
  bandwidth?: number | undefined;
};
type Keyed = Partial<Record<KeyTagName | 'account', string | number | null | undefined>>;
type Envelope = Keyed & { service?: string | undefined };

/** What the call itself fixed: the account a job asked for (a service need not echo it). */
export interface CallContext {
  account?: string;
}

/** `/times`: one point per bucket, at the bucket start. */
export function timesToPoints(body: StatisticTimes, call: CallContext = {}): Point[] {
  return body.result.map((bucket) => point('total', bucket.start, body, call, {}, bucket));
}

/** `/times/<grouping>`: one point per bucket and group, at the bucket start (`accounts` rows are cdn_traffic points).
 * */
export function timesGroupedToPoints(
  grouping: StatisticGrouping,
  body: StatisticTimesGrouped,
  call: CallContext = {},
): Point[] {
  return body.result.flatMap((bucket) => bucketToPoints(grouping, bucket, body, call));
}

/**
 * The same points bucket by bucket, each bucket taken out of `body` as its points are made: a reader that hands each
 * part on holds one bucket's points and the buckets not yet made into points, never the whole answer's points.
 */
export function* timesGroupedPointParts(
  grouping: StatisticGrouping,
  body: StatisticTimesGrouped,
  call: CallContext = {},
): Generator<Point[]> {
  for (let bucket = body.result.shift(); bucket; bucket = body.result.shift())
    yield bucketToPoints(grouping, bucket, body, call);
}

function bucketToPoints(
  grouping: StatisticGrouping,
  bucket: StatisticGroupedBucket,
  envelope: Envelope,
  call: CallContext,
): Point[] {
  return bucket.result.map((row) => point(grouping, bucket.start, envelope, call, row, row));
}

/** `/`: one point at the window start. */
export function totalToPoints(body: StatisticTotal, call: CallContext = {}): Point[] {
  return [point('total', body.start, body, call, {}, body)];
}

/** `/<grouping>`: one point per group at the window start. */
export function groupedToPoints(grouping: StatisticGrouping, body: StatisticGrouped, call: CallContext = {}): Point[] {
  return body.result.map((row) => point(grouping, body.start, body, call, row, row));
}

/**
 * The API's values as fields: `bandwidth` is a peak (bandwidth_peak), and cached_traffic = round(traffic × cache_ratio)
 * (the ratio taken as one of bytes, see measurements.ts) so that ratios over buckets are sums of bytes.
 */
export function trafficFields(v: Values): Record<string, number> {
  const fields: Record<string, number> = {};
  if (v.traffic !== undefined) fields.traffic = v.traffic;
  if (v.hits !== undefined) fields.hits = v.hits;
  if (v.traffic !== undefined && v.cache_ratio !== undefined)
    fields.cached_traffic = Math.round(v.traffic * v.cache_ratio);
  if (v.cache_ratio !== undefined) fields.cache_ratio = v.cache_ratio;
  if (v.bandwidth !== undefined) fields.bandwidth_peak = v.bandwidth;
  return fields;
}

/**
 * Tags: the call's echoed filters, overridden by the row's keys (so filtered series stay apart from unfiltered ones);
 * `service` is `all` when the call did not filter it. The account is the row's (accounts grouping), else the one the
 * call asked for, else its echo; the jobs always ask for one, so no point stands for all accounts.
 */
function point(
  grouping: StatisticGrouping | 'total',
  start: string,
  envelope: Envelope,
  call: CallContext,
  row: Keyed | StatisticRow,
  values: Values,
): Point {
  // The keys of a row or of the envelope's echoed filters (KEY_TAGS: account and service are handled apart).
  const value = (key: KeyTagName) => (row as Keyed)[key] ?? envelope[key];
  const keys = Object.fromEntries(KEY_TAGS.map((key) => [STATISTIC_KEYS[key].tag, value(key)]));
  const tags: Record<string, string> = {
    ...presentTags({ account: row.account ?? call.account ?? envelope.account }),
    service: 'all',
    ...presentTags({ service: envelope.service }),
    ...presentTags(keys),
  };
  // The schemas already checked that `start` parses.
  return { measurement: trafficMeasurement(grouping), tags, fields: trafficFields(values), time: toMs(start) };
}
