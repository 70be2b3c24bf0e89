import type { FieldSchema, MeasurementSchema } from '../../points.js';
import {
  GROUPING_KEYS,
  STATISTIC_GROUPINGS,
  STATISTIC_KEYS,
  type StatisticGrouping,
  type StatisticKey,
} from '../../spec/statistic.js';

/** Totals per account and bucket; the `accounts` grouping's rows are these same points (same series). */
export const TRAFFIC_MEASUREMENT = 'cdn_traffic';

/** Groupings stored in a measurement of their own (`accounts` is cdn_traffic itself). */
export type DimensionGrouping = Exclude<StatisticGrouping, 'accounts'>;
export const DIMENSION_GROUPINGS = STATISTIC_GROUPINGS.filter((g): g is DimensionGrouping => g !== 'accounts');

/** One aggregation level per measurement: a query without a filter never counts a byte twice. */
export function trafficMeasurement(grouping: StatisticGrouping | 'total'): string {
  return grouping === 'total' || grouping === 'accounts' ? TRAFFIC_MEASUREMENT : `cdn_traffic_by_${grouping}`;
}

/**
 * cached_traffic = round(traffic × cache_ratio). The spec does not say whether the ratio is one of bytes or of hits;
 * bytes are assumed, like the metrics API's hit ratio, which its spec defines as cached bytes / total bytes. Stored so
 * that a ratio over several buckets or series is sum(cached_traffic) / sum(traffic), weighted by traffic.
 */
const FIELDS: Record<string, FieldSchema> = {
  traffic: {
    type: 'integer',
    description: 'traffic in the bucket',
    unit: 'bytes',
    aggregate: 'sum',
    nonNegative: true,
  },
  hits: {
    type: 'integer',
    description: 'number of connections in the bucket',
    unit: 'hits',
    aggregate: 'sum',
    nonNegative: true,
  },
  cached_traffic: {
    type: 'integer',
    description: 'traffic served from cache: round(traffic × cache_ratio) (the ratio is taken as one of bytes)',
    unit: 'bytes',
    aggregate: 'sum',
    nonNegative: true,
  },
  cache_ratio: {
    type: 'float',
    description:
      'share served from cache in this bucket only, 0..1, unrounded; over several buckets or series use ' +
      'sum(cached_traffic) / sum(traffic), never its mean',
    unit: 'ratio',
    aggregate: { ratio: ['cached_traffic', 'traffic'] },
    nonNegative: true,
  },
  bandwidth_peak: {
    type: 'integer',
    description: 'peak speed in the bucket (the API field bandwidth)',
    unit: 'bits/s',
    aggregate: 'max',
    nonNegative: true,
  },
};

/** The tags of keys with what they mean (the key table of spec/statistic.ts). */
function tagsOf(keys: readonly StatisticKey[]): Record<string, string> {
  return Object.fromEntries(keys.map((key) => [STATISTIC_KEYS[key].tag, STATISTIC_KEYS[key].text]));
}

const COMMON_TAGS = tagsOf(['account', 'service']);

/** The key tags of a grouping; paths also carry the host they were read for (the spec: /paths requires host). */
function keyTags(grouping: DimensionGrouping): Record<string, string> {
  return tagsOf(grouping === 'paths' ? ['host', ...GROUPING_KEYS.paths] : GROUPING_KEYS[grouping]);
}

const SOURCE = 'GET /app/statistic/v3';
const RATIO = 'sum("cached_traffic") / sum("traffic") AS "cache_ratio"';

/** Traffic statistics v3: one point per bucket (× group) of /times and /times/<g>; time = bucket start. */
export const statisticMeasurements: MeasurementSchema[] = [
  {
    name: TRAFFIC_MEASUREMENT,
    description:
      'CDN traffic, hits, cached traffic and peak bandwidth per account and bucket (the account total; the accounts ' +
      'grouping gives the same points)',
    source: `${SOURCE}/times?account=… or /times/accounts (several accounts in one call)`,
    tags: COMMON_TAGS,
    fields: FIELDS,
    query:
      `SELECT sum("traffic") AS "traffic", sum("hits") AS "hits", ${RATIO}, max("bandwidth_peak") AS ` +
      `"bandwidth_peak" FROM "cdn_traffic" WHERE $timeFilter GROUP BY time($__interval), "account"`,
  },
  ...DIMENSION_GROUPINGS.map(
    (grouping): MeasurementSchema => ({
      name: trafficMeasurement(grouping),
      description: `CDN traffic, hits, cached traffic and peak bandwidth per account, bucket and ${grouping} group`,
      source: `${SOURCE}/times/${grouping}`,
      tags: { ...COMMON_TAGS, ...keyTags(grouping) },
      fields: FIELDS,
      query:
        `SELECT sum("traffic") AS "traffic", ${RATIO} FROM "${trafficMeasurement(grouping)}" WHERE $timeFilter ` +
        `GROUP BY time($__interval), ${Object.keys(keyTags(grouping))
          .filter((k) => !k.endsWith('_name'))
          .map((k) => `"${k}"`)
          .join(', ')}`,
    }),
  ),
];
