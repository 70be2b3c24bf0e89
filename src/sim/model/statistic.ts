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
 * series is computed once, keyed by what it is grouped by (resource id, host or account). Dimension filters take
 * their share of each unit's minute and dimension groupings split it (statistic-dimensions.ts, integers by largest
 * remainder); buckets and ranges then only add minutes. So everything adds up exactly: the groups of a bucket to the
 * total of the same filters, and the buckets of a group to that group over the whole range.
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

/** Per-minute sums of one group (or of a bandwidth base): integers, so any window of them sums exactly. */
interface MinuteSums {
  bytes: Float64Array;
  requests: Float64Array;
  cachedBytes: Float64Array;
}

/** How units become groups: one total, one group per unit, or a split of each unit by a dimension. */
export type StatGrouping = { kind: 'total' } | { kind: 'unit' } | { kind: 'dimension'; grouping: DimensionGrouping };

/**
 * A request's groups, minute by minute: filters take their share and groupings split each unit's minute (integers,
 * largest remainder), and buckets only add minutes up. So the buckets of a group add up exactly to that group over
 * the whole range (any granularity), and the groups of a bucket to its total, whatever the grouping and filters.
 */
export interface GroupedSeries {
  from: number;
  minutes: number;
  grouping: StatGrouping;
  groups: Map<string, MinuteSums>;
  /** Bytes per minute of each bandwidth base: a unit group's own series, else the whole selection (`selection`). */
  bases: Map<string, Float64Array>;
}

export function groupSeries(
  world: World,
  series: readonly UnitSeries[],
  filters: DimensionFilters,
  grouping: StatGrouping,
): GroupedSeries {
  const first = series[0];
  const minutes = first?.bytes.length ?? 0;
  const out: GroupedSeries = { from: first?.from ?? 0, minutes, grouping, groups: new Map(), bases: new Map() };
  if (grouping.kind === 'total') sumsOf(out.groups, 'total', minutes);
  for (const s of series) {
    const base = out.bases.get(baseKey(grouping, s.unit.key)) ?? new Float64Array(minutes);
    out.bases.set(baseKey(grouping, s.unit.key), base);
    for (let i = 0; i < minutes; i++) {
      base[i]! += s.bytes[i]!;
      const minute = { bytes: s.bytes[i]!, requests: s.requests[i]!, cachedBytes: s.cachedBytes[i]! };
      if (minute.bytes + minute.requests === 0) continue;
      const filtered = applyDimensionFilters(world, s.unit.account, minute, filters);
      if (grouping.kind === 'total') add(sumsOf(out.groups, 'total', minutes), i, filtered);
      else if (grouping.kind === 'unit') add(sumsOf(out.groups, s.unit.key, minutes), i, filtered);
      else
        for (const [key, part] of splitByDimension(world, s.unit.account, filtered, grouping.grouping, filters))
          add(sumsOf(out.groups, key, minutes), i, part);
    }
  }
  return out;
}

function baseKey(grouping: StatGrouping, key: string): string {
  return grouping.kind === 'unit' ? key : 'selection';
}

function sumsOf(groups: Map<string, MinuteSums>, key: string, minutes: number): MinuteSums {
  let sums = groups.get(key);
  if (!sums)
    groups.set(
      key,
      (sums = {
        bytes: new Float64Array(minutes),
        requests: new Float64Array(minutes),
        cachedBytes: new Float64Array(minutes),
      }),
    );
  return sums;
}

function add(sums: MinuteSums, i: number, a: Amounts): void {
  sums.bytes[i]! += a.bytes;
  sums.requests[i]! += a.requests;
  sums.cachedBytes[i]! += a.cachedBytes;
}

/** Values per group key over [from, to) (whole minutes inside the series), in first-seen order. */
export function statValues(g: GroupedSeries, from: number, to: number): Map<string, StatValues> {
  const a = Math.max(0, (from - g.from) / MINUTE);
  const b = Math.min(g.minutes, (to - g.from) / MINUTE);
  const out = new Map<string, StatValues>();
  for (const [key, sums] of g.groups) {
    const amounts = { bytes: 0, requests: 0, cachedBytes: 0 };
    for (let i = a; i < b; i++) {
      amounts.bytes += sums.bytes[i]!;
      amounts.requests += sums.requests[i]!;
      amounts.cachedBytes += sums.cachedBytes[i]!;
    }
    const base = g.bases.get(baseKey(g.grouping, key));
    let bytes = 0;
    let peakBytes = 0;
    for (let i = a; base && i < b; i++) {
      bytes += base[i]!;
      peakBytes = Math.max(peakBytes, base[i]!);
    }
    out.set(key, toValues(amounts, { bytes, peakBytes }));
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
