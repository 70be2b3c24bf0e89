import {
  bandwidthMetric,
  METRIC_NAMES,
  METRIC_SIDES,
  metricKind,
  requestsTotalMetric,
  requestTimeMetric,
  SIZE_RANGES,
  STATUS_CLASSES,
  STATUS_CODES,
  statusClassMetric,
  statusClassOf,
  statusMetric,
  type MetricName,
  type MetricSide,
  type SizeRange,
} from '../../spec/metrics.js';
import { MINUTE } from '../../time.js';
import { splitInteger, unit } from './rng.js';
import { addTraffic, sumTraffic, type MinuteTraffic } from './traffic.js';
import type { SimResource, World } from './world.js';

/**
 * The metrics API's values, derived from the per-minute traffic model so they agree with the statistics API.
 * `null` where a value is undefined (a median of no requests, a ratio of no bytes): not shown in the spec, chosen as
 * the most plausible answer of a real service.
 */
export type MetricRow = Record<MetricName, number | null>;

/** One resource over one period: its row and the traffic it came from (the aggregate needs both). */
export interface ResourcePeriod {
  resource: SimResource;
  traffic: MinuteTraffic;
  row: MetricRow;
}

/** Fixed share of each status code (order of STATUS_CODES): mostly 200s, origins see more 304/404/5xx. */
const STATUS_WEIGHTS: Record<MetricSide, readonly number[]> = {
  edge: [8000, 100, 600, 50, 100, 600, 20, 10, 30, 200, 10, 10, 10, 2, 8, 5, 4, 1],
  origin: [6500, 50, 500, 100, 150, 1800, 40, 20, 60, 500, 10, 20, 60, 5, 60, 40, 30, 5],
};

/** Plausible median load times (seconds) of 2xx responses per size range at the edge; origins are slower. */
const EDGE_MEDIAN_SEC: Record<SizeRange, number> = {
  '0_250k': 0.035,
  '250k_500k': 0.08,
  '500k_750k': 0.13,
  '750k_1m': 0.18,
  '1m_2m': 0.32,
  '2m_3m': 0.55,
  '3m_4m': 0.8,
  '4m_plus': 1.5,
};
const ORIGIN_SLOWDOWN = 2.5;
const NO_TRAFFIC: MinuteTraffic = { requests: 0, bytes: 0, cachedBytes: 0, originRequests: 0, originBytes: 0 };

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/**
 * Metrics of one resource over [fromMs, toMs). Minutes not finished by `nowMs` have no traffic yet: the service
 * cannot report the future (not shown in the spec; chosen).
 */
export function resourcePeriod(
  world: World,
  account: string,
  resource: SimResource,
  fromMs: number,
  toMs: number,
  nowMs: number,
): ResourcePeriod {
  const traffic = sumTraffic(world, account, [resource], fromMs, toMs, (t) => (t + MINUTE <= nowMs ? 1 : 0));
  const row = emptyRow();
  setCounts(row, 'edge', traffic.requests);
  setCounts(row, 'origin', traffic.originRequests);
  row.edge_hit_bytes = traffic.cachedBytes;
  setTrafficRates(row, traffic, (toMs - fromMs) / 1000);
  for (const side of METRIC_SIDES) {
    const hasSuccesses = (row[statusClassMetric(side, '2xx')] ?? 0) > 0;
    for (const range of SIZE_RANGES) {
      row[requestTimeMetric(side, range)] = hasSuccesses ? medianSec(world, resource, fromMs, side, range) : null;
    }
  }
  return { resource, traffic, row };
}

/**
 * The account total: every count (status codes, classes, totals, hit bytes) is the exact sum over resources;
 * bandwidth and hit ratio come from the summed traffic; medians, which do not add up, are averaged weighted by each
 * resource's 2xx count.
 */
export function aggregatePeriods(parts: readonly ResourcePeriod[], fromMs: number, toMs: number): MetricRow {
  const row = emptyRow();
  for (const name of METRIC_NAMES) {
    const kind = metricKind(name);
    if (kind === 'count' || kind === 'hit_bytes') row[name] = parts.reduce((sum, p) => sum + (p.row[name] ?? 0), 0);
  }
  const traffic = parts.reduce((sum, p) => addTraffic(sum, p.traffic), NO_TRAFFIC);
  setTrafficRates(row, traffic, (toMs - fromMs) / 1000);
  for (const side of METRIC_SIDES) {
    for (const range of SIZE_RANGES) row[requestTimeMetric(side, range)] = weightedMedian(parts, side, range);
  }
  return row;
}

/** Only the requested metrics, in the requested order. */
export function pickMetrics(row: MetricRow, names: readonly MetricName[]): Record<string, number | null> {
  return Object.fromEntries(names.map((n) => [n, row[n]]));
}

function emptyRow(): MetricRow {
  return Object.fromEntries(METRIC_NAMES.map((n) => [n, null])) as MetricRow;
}

/** Codes split from the side's requests by fixed weights; a class is the sum of its codes, so classes sum to the total.
 * */
function setCounts(row: MetricRow, side: MetricSide, requests: number): void {
  const perCode = splitInteger(requests, STATUS_WEIGHTS[side]);
  for (const cls of STATUS_CLASSES) row[statusClassMetric(side, cls)] = 0;
  STATUS_CODES.forEach((code, i) => {
    const count = perCode[i] ?? 0;
    row[statusMetric(side, code)] = count;
    const cls = statusClassMetric(side, statusClassOf(code));
    row[cls] = (row[cls] ?? 0) + count;
  });
  row[requestsTotalMetric(side)] = requests;
}

function setTrafficRates(row: MetricRow, traffic: MinuteTraffic, seconds: number): void {
  row[bandwidthMetric('edge')] = round((traffic.bytes * 8) / seconds, 3);
  row[bandwidthMetric('origin')] = round((traffic.originBytes * 8) / seconds, 3);
  row.edge_hit_ratio = traffic.bytes > 0 ? round(traffic.cachedBytes / traffic.bytes, 6) : null;
}

function medianSec(world: World, resource: SimResource, fromMs: number, side: MetricSide, range: SizeRange): number {
  const jitter = 0.8 + 0.45 * unit(world.seed, resource.id, fromMs, side, range, 'rt');
  return round(EDGE_MEDIAN_SEC[range] * (side === 'origin' ? ORIGIN_SLOWDOWN : 1) * jitter, 3);
}

function weightedMedian(parts: readonly ResourcePeriod[], side: MetricSide, range: SizeRange): number | null {
  let weight = 0;
  let sum = 0;
  for (const p of parts) {
    const median = p.row[requestTimeMetric(side, range)];
    const successes = p.row[statusClassMetric(side, '2xx')] ?? 0;
    if (median === null || successes === 0) continue;
    weight += successes;
    sum += median * successes;
  }
  return weight > 0 ? round(sum / weight, 3) : null;
}
