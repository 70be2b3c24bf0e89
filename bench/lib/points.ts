/**
 * Points of the real schema with a realistic mix and cardinality, in the chunks the collector writes them: one span of
 * one job per `write` call. Per 10 minutes of 1,000 resources and 200 streams (2 accounts):
 * - cdn_metrics_resource: 1,000 points (every metric field: 66) — the metrics_resource jobs' 10-minute windows;
 * - cdn_traffic(_by_resources|_countries|_codes): 2 × (1,000 resources + 50 countries + 10 codes + 1 total) per
 *   5-minute bucket = 4,244 per 10 minutes;
 * - cdn_views(_by_streams|_stream_types): 2 × (200 streams + 3 stream types + 1 total) per 5-minute bucket = 816.
 * About 6,000 points per 10 minutes; 1 M points ≈ 1.1 simulated days.
 */
import type { Point } from '../../src/points.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { METRICS_RESOURCE_MEASUREMENT } from '../../src/sources/metrics/measurements.js';
import { trafficMeasurement } from '../../src/sources/statistic/measurements.js';
import { viewsMeasurement } from '../../src/sources/streamstat/measurements.js';

export const RESOURCES = 1000;
export const STREAMS = 200;
const ACCOUNTS = ['acme', 'globex'];
const T0 = Date.UTC(2024, 0, 1);
const TEN_MIN = 600_000;
const BUCKET = 300_000;
const METRIC_FIELDS = Object.entries(SCHEMA.get(METRICS_RESOURCE_MEASUREMENT)!.fields);
// Names as hostile as the simulator's: spaces, commas, `=`, quotes, non-ASCII.
const NAMES = ['www', 'video cdn', 'static,assets', 'api=v2', 'quoted "live"', 'Видео', 'img', 'media'];

const resourceTags = (r: number) => ({
  account: ACCOUNTS[r % 2]!,
  resource: String(100_000 + r),
  resource_name: `${NAMES[r % NAMES.length]} ${r}`,
  cname: `r${100_000 + r}.${ACCOUNTS[r % 2]}.cdn.example`,
});

function metricsResource(r: number, time: number, seq: number): Point {
  const fields: Record<string, number> = {};
  for (let f = 0; f < METRIC_FIELDS.length; f++) {
    const [key, def] = METRIC_FIELDS[f]!;
    const v = (seq * 31 + f * 7919 + r) % 100_000;
    fields[key] = def.type === 'integer' ? v : v / 997;
  }
  return { measurement: 'cdn_metrics_resource', tags: resourceTags(r), fields, time };
}

function traffic(
  account: string,
  grouping: 'resources' | 'countries' | 'codes' | 'total',
  tags: Record<string, string>,
  time: number,
  seq: number,
): Point {
  const base = (seq * 7 + time / BUCKET) % 1_000_000;
  const ratio = (base % 1000) / 1000;
  return {
    measurement: trafficMeasurement(grouping),
    tags: { account, service: 'all', ...tags },
    fields: {
      traffic: base * 1013,
      hits: base % 977,
      cached_traffic: Math.round(base * 1013 * ratio),
      cache_ratio: ratio,
      bandwidth_peak: base * 8,
    },
    time,
  };
}

function views(
  account: string,
  grouping: 'streams' | 'stream-types' | 'total',
  tags: Record<string, string>,
  time: number,
  seq: number,
): Point {
  return {
    measurement: viewsMeasurement(grouping),
    tags: { account, ...tags },
    fields: { views: seq % 5000, views_max: seq % 50 },
    time,
  };
}

/** The write calls of one 10-minute window `w`: what the collector's jobs would pass for it. */
function windowChunks(w: number): Point[][] {
  const time = T0 + w * TEN_MIN;
  const chunks: Point[][] = [];
  // metrics_resource/<account>: one call per window and account.
  for (const account of ACCOUNTS) {
    const points: Point[] = [];
    for (let r = ACCOUNTS.indexOf(account); r < RESOURCES; r += 2) points.push(metricsResource(r, time, w));
    chunks.push(points);
  }
  for (const account of ACCOUNTS) {
    for (const [grouping, count] of [
      ['resources', RESOURCES],
      ['countries', 50],
      ['codes', 10],
      ['total', 1],
    ] as const) {
      const points: Point[] = [];
      for (const bucket of [time, time + BUCKET]) {
        for (let g = 0; g < count; g++) {
          const tags: Record<string, string> =
            grouping === 'resources'
              ? { resource: String(100_000 + g), resource_name: `${NAMES[g % NAMES.length]} ${g}` }
              : grouping === 'countries'
                ? { country: `C${g}`, country_name: `Country ${g}` }
                : grouping === 'codes'
                  ? { code: String(200 + g) }
                  : {};
          points.push(traffic(account, grouping, tags, bucket, g));
        }
      }
      chunks.push(points);
    }
    for (const [grouping, count] of [
      ['streams', STREAMS],
      ['stream-types', 3],
      ['total', 1],
    ] as const) {
      const points: Point[] = [];
      for (const bucket of [time, time + BUCKET]) {
        for (let g = 0; g < count; g++) {
          const tags: Record<string, string> =
            grouping === 'streams'
              ? { stream: `live/${NAMES[g % NAMES.length]}-${g}` }
              : grouping === 'stream-types'
                ? { stream_type: ['live', 'vod', 'unknown'][g]! }
                : {};
          points.push(views(account, grouping, tags, bucket, g));
        }
      }
      chunks.push(points);
    }
  }
  return chunks;
}

/** Write calls totalling exactly `total` points (the last one cut short), built lazily as the caller pulls them. */
export function* writeCalls(total: number): Generator<Point[]> {
  let left = total;
  for (let w = 0; left > 0; w++) {
    for (const chunk of windowChunks(w)) {
      if (left <= 0) return;
      const part = chunk.length <= left ? chunk : chunk.slice(0, left);
      left -= part.length;
      yield part;
    }
  }
}
