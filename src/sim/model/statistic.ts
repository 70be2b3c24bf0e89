import { MINUTE } from '../../time.js';
import {
  applyDimensionFilters,
  splitByDimension,
  type Amounts,
  type DimensionFilters,
  type DimensionGrouping,
} from './statistic-dimensions.js';
import { minuteTraffic, scaleTraffic } from './traffic.js';
import type { SimResource, World } from './world.js';

/**
 * Traffic statistics of the simulator, derived from model/traffic.ts: traffic = bytes, hits = requests,
 * cache_ratio = cachedBytes / bytes, bandwidth = peak bits/s = max over minutes of bytes × 8 / 60.
 *
 * Resources are selected first (account, resource, host, service); each selected resource is a "unit" whose minute
 * series is computed once, keyed by what it is grouped by (resource id, host or account). Buckets sum each unit's
 * series, dimension filters take their share of each unit's sums (statistic-dimensions.ts) and dimension groupings
 * split them. Every grouping therefore adds up the same per-unit shares, so groups sum exactly to the total of the
 * same filters; /times buckets add up to the total of the whole window when no dimension filter is set (with one,
 * each bucket's shares are rounded on their own).
 *
 * Bandwidth of a share (not shown how a real service computes it; chosen): the peak of the unfiltered base series
 * scaled by the share's part of the base's bytes. The base is the whole selection for totals and dimension groups,
 * and the group's own resources for resources, hosts and accounts.
 */
export interface TrafficUnit {
  /** Group key: resource id, host or account name. */
  key: string;
  account: string;
  resource: SimResource;
}

export interface UnitSeries {
  unit: TrafficUnit;
  from: number;
  bytes: Float64Array;
  requests: Float64Array;
  cachedBytes: Float64Array;
}

export interface StatValues {
  traffic: number;
  hits: number;
  cache_ratio: number;
  bandwidth: number;
}

/** Per-minute sums of each unit over [from, to); `visible` scales a minute (late data), floored per resource-minute. */
export function unitSeries(
  world: World,
  units: readonly TrafficUnit[],
  from: number,
  to: number,
  visible: (minuteMs: number) => number,
): UnitSeries[] {
  const minutes = Math.max(0, Math.ceil((to - from) / MINUTE));
  return units.map((unit) => {
    const s: UnitSeries = {
      unit,
      from,
      bytes: new Float64Array(minutes),
      requests: new Float64Array(minutes),
      cachedBytes: new Float64Array(minutes),
    };
    for (let i = 0; i < minutes; i++) {
      const t = from + i * MINUTE;
      const share = visible(t);
      if (share <= 0) continue;
      const full = minuteTraffic(world, unit.account, unit.resource, t);
      const mt = share >= 1 ? full : scaleTraffic(full, share);
      s.bytes[i] = mt.bytes;
      s.requests[i] = mt.requests;
      s.cachedBytes[i] = mt.cachedBytes;
    }
    return s;
  });
}

/** Sums of a series over [from, to) (whole minutes). */
function window(s: UnitSeries, from: number, to: number): Amounts {
  const a = Math.max(0, (from - s.from) / MINUTE);
  const b = Math.min(s.bytes.length, (to - s.from) / MINUTE);
  const amounts = { bytes: 0, requests: 0, cachedBytes: 0 };
  for (let i = a; i < b; i++) {
    amounts.bytes += s.bytes[i]!;
    amounts.requests += s.requests[i]!;
    amounts.cachedBytes += s.cachedBytes[i]!;
  }
  return amounts;
}

/** Peak minute of bytes of several series together (the selection's bandwidth, not the sum of peaks). */
function combinedPeak(series: readonly UnitSeries[], from: number, to: number): number {
  const first = series[0];
  if (!first) return 0;
  let peak = 0;
  for (let i = Math.max(0, (from - first.from) / MINUTE); i < Math.min(first.bytes.length, (to - first.from) / MINUTE); i++) {
    let sum = 0;
    for (const s of series) sum += s.bytes[i]!;
    peak = Math.max(peak, sum);
  }
  return peak;
}

/** How units become groups: one total, one group per unit, or a split of each unit by a dimension. */
export type StatGrouping = { kind: 'total' } | { kind: 'unit' } | { kind: 'dimension'; grouping: DimensionGrouping };

/** Values per group key over [from, to), in first-seen order. */
export function statValues(
  world: World,
  series: readonly UnitSeries[],
  from: number,
  to: number,
  filters: DimensionFilters,
  grouping: StatGrouping,
): Map<string, StatValues> {
  const groups = new Map<string, Amounts>();
  const add = (key: string, a: Amounts) => {
    const acc = groups.get(key) ?? { bytes: 0, requests: 0, cachedBytes: 0 };
    groups.set(key, { bytes: acc.bytes + a.bytes, requests: acc.requests + a.requests, cachedBytes: acc.cachedBytes + a.cachedBytes });
  };
  // Base of each group's bandwidth: its own series for unit groups, the whole selection otherwise.
  const baseSeries = new Map<string, UnitSeries[]>();
  const baseBytes = new Map<string, number>();
  for (const s of series) {
    const amounts = window(s, from, to);
    const baseKey = grouping.kind === 'unit' ? s.unit.key : 'selection';
    baseSeries.set(baseKey, [...(baseSeries.get(baseKey) ?? []), s]);
    baseBytes.set(baseKey, (baseBytes.get(baseKey) ?? 0) + amounts.bytes);
    const filtered = applyDimensionFilters(world, s.unit.account, amounts, filters);
    if (grouping.kind === 'total') add('total', filtered);
    else if (grouping.kind === 'unit') add(s.unit.key, filtered);
    else for (const [key, part] of splitByDimension(world, s.unit.account, filtered, grouping.grouping, filters)) add(key, part);
  }
  const out = new Map<string, StatValues>();
  for (const [key, a] of groups) {
    const baseKey = grouping.kind === 'unit' ? key : 'selection';
    const base = { bytes: baseBytes.get(baseKey) ?? 0, peakBytes: combinedPeak(baseSeries.get(baseKey) ?? [], from, to) };
    out.set(key, toValues(a, base));
  }
  return out;
}

function toValues(a: Amounts, base: { bytes: number; peakBytes: number }): StatValues {
  const share = base.bytes > 0 ? a.bytes / base.bytes : 0;
  return {
    traffic: a.bytes,
    hits: a.requests,
    cache_ratio: a.bytes > 0 ? Math.min(1, a.cachedBytes / a.bytes) : 0,
    bandwidth: Math.floor((base.peakBytes * share * 8) / 60),
  };
}
