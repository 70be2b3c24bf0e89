import { MINUTE } from '../../time.js';
import { splitInteger, unit } from './rng.js';
import type { SimStream, World } from './world.js';

/**
 * Stream views of the simulated provider. The atom is the number of simultaneous views of one stream in one minute
 * (deterministic from seed, account, stream and minute, with a daily rhythm). Everything else derives from it:
 * - views of a span = the sum of its per-minute values, so views add up over time and over any grouping;
 * - filters and the browser/platform groupings split each per-minute value with fixed weights (splitInteger), so the
 *   groups of a minute add up exactly to the minute;
 * - views_max of a group = the largest per-minute sum of the group's cells (the total: of everything selected);
 * - users (simplification, documented): each user watches exactly one stream, with one browser, platform and
 *   country. A stream's users over a span = its peak plus a stream-specific share of the views above the peak
 *   (churn); a group's users are the stream's users split by the group's share of the stream's views. Grouped users
 *   therefore sum exactly to the total users of the same window.
 */
export interface ViewValues {
  views: number;
  users: number;
  views_max: number;
}

export interface StreamRef {
  account: string;
  stream: SimStream;
}

interface Split {
  names: readonly string[];
  weights: readonly number[];
}

/** Fixed audience mixes; names include spaces on purpose (they become InfluxDB tags). */
export const BROWSERS: Split = {
  names: ['Chrome', 'Safari', 'Yandex Browser', 'Firefox', 'Edge', 'Other'],
  weights: [45, 20, 12, 10, 8, 5],
};
export const PLATFORMS: Split = {
  names: ['Android', 'iOS', 'Windows', 'Mac OS X', 'Linux', 'Smart TV'],
  weights: [40, 25, 20, 8, 4, 3],
};
const COUNTRIES: Split = { names: ['RU', 'US', 'DE', 'KZ'], weights: [50, 25, 15, 10] };
const REGIONS: Record<string, Split> = {
  RU: { names: ['MOW', 'SPE', 'SVE', 'TA'], weights: [40, 25, 20, 15] },
  US: { names: ['CA', 'NY', 'TX'], weights: [40, 35, 25] },
  DE: { names: ['BE', 'BY', 'HH'], weights: [40, 35, 25] },
  KZ: { names: ['ALA', 'AST'], weights: [60, 40] },
};

export interface ViewFilters {
  country?: string;
  region?: string;
  browser?: string;
  platform?: string;
}

/** How selected streams are grouped: not at all, by a property of the stream, or by an audience split. */
export type ViewGrouping =
  | { kind: 'total' }
  | { kind: 'stream'; key: (ref: StreamRef) => string }
  | { kind: 'split'; dimension: 'browser' | 'platform' };

/** Fraction of a minute's final value visible at `now` (late data grows until `lagMs` after the minute ends). */
export function visibleShare(minuteMs: number, now: number, lagMs: number): number {
  const sinceEnd = now - (minuteMs + MINUTE);
  if (sinceEnd < 0) return 0;
  return lagMs <= 0 ? 1 : Math.min(1, sinceEnd / lagMs);
}

/** Evening-heavy rhythm for live streams (peak 19:00 UTC), a flatter one for VOD; unknown streams are flat. */
function rhythm(type: SimStream['type'], minuteMs: number): number {
  const amplitude = type === 'live' ? 0.7 : type === 'vod' ? 0.3 : 0;
  const minuteOfDay = (minuteMs / MINUTE) % 1440;
  return 1 + amplitude * Math.sin(((minuteOfDay - 780) / 1440) * 2 * Math.PI);
}

/** Final simultaneous views of a stream in a minute. */
export function minuteViews(world: World, ref: StreamRef, minuteMs: number): number {
  const m = Math.floor(minuteMs / MINUTE);
  const scale = 5 + Math.floor(unit(world.seed, ref.account, ref.stream.name, 'vscale') * 400);
  const noise = 0.85 + 0.3 * unit(world.seed, ref.account, ref.stream.name, m, 'vn');
  return Math.round(scale * rhythm(ref.stream.type, minuteMs) * noise);
}

function churn(world: World, ref: StreamRef): number {
  return 0.05 + 0.1 * unit(world.seed, ref.account, ref.stream.name, 'churn');
}

/** The part of `value` that falls on `name` of a split; an unknown name gets nothing. */
function take(value: number, split: Split | undefined, name: string): number {
  const index = split ? split.names.indexOf(name) : -1;
  return index < 0 ? 0 : splitInteger(value, split!.weights)[index]!;
}

/** Applies the filters in a fixed order (country, region, browser, platform) to one per-minute value. */
function filtered(value: number, f: ViewFilters): number {
  let v = value;
  if (f.country !== undefined) v = take(v, COUNTRIES, f.country);
  if (f.region !== undefined) v = take(v, f.country === undefined ? undefined : REGIONS[f.country], f.region);
  if (f.browser !== undefined) v = take(v, BROWSERS, f.browser);
  if (f.platform !== undefined) v = take(v, PLATFORMS, f.platform);
  return v;
}

/** Group names and per-group parts of one (filtered) minute value. */
function partsOf(value: number, grouping: ViewGrouping, ref: StreamRef, f: ViewFilters): Array<[string, number]> {
  if (grouping.kind === 'total') return [['total', value]];
  if (grouping.kind === 'stream') return [[grouping.key(ref), value]];
  // Grouping by the same dimension a filter already fixed leaves that one group.
  const fixed = f[grouping.dimension];
  if (fixed !== undefined) return [[fixed, value]];
  const split = grouping.dimension === 'browser' ? BROWSERS : PLATFORMS;
  const parts = splitInteger(value, split.weights);
  return split.names.map((name, i) => [name, parts[i]!]);
}

export interface ViewQuery {
  streams: readonly StreamRef[];
  filters: ViewFilters;
  grouping: ViewGrouping;
  from: number;
  to: number;
  /** Share of a minute visible now (lag); 1 for all minutes when omitted. */
  visible?: (minuteMs: number) => number;
}

/** Values per group over [from, to), in first-seen order. Groups without any cell are absent. */
export function viewsByGroup(world: World, q: ViewQuery): Map<string, ViewValues> {
  const minutes = Math.max(0, Math.ceil((q.to - q.from) / MINUTE));
  const perMinute = new Map<string, Float64Array>();
  const result = new Map<string, ViewValues>();
  for (const ref of q.streams) {
    const streamViews = new Map<string, number>();
    let streamTotal = 0;
    let streamPeak = 0;
    for (let i = 0; i < minutes; i++) {
      const t = q.from + i * MINUTE;
      const share = q.visible ? q.visible(t) : 1;
      const value = share <= 0 ? 0 : filtered(Math.floor(minuteViews(world, ref, t) * Math.min(1, share)), q.filters);
      streamTotal += value;
      streamPeak = Math.max(streamPeak, value);
      for (const [group, part] of partsOf(value, q.grouping, ref, q.filters)) {
        let series = perMinute.get(group);
        if (!series) perMinute.set(group, (series = new Float64Array(minutes)));
        series[i]! += part;
        streamViews.set(group, (streamViews.get(group) ?? 0) + part);
      }
    }
    const users = Math.min(streamTotal, streamPeak + Math.floor((streamTotal - streamPeak) * churn(world, ref)));
    const groups = [...streamViews.keys()];
    const userParts = splitInteger(
      users,
      groups.map((g) => streamViews.get(g)!),
    );
    groups.forEach((group, i) => {
      const acc = result.get(group) ?? { views: 0, users: 0, views_max: 0 };
      acc.views += streamViews.get(group)!;
      acc.users += userParts[i]!;
      result.set(group, acc);
    });
  }
  for (const [group, series] of perMinute) result.get(group)!.views_max = series.reduce((a, b) => Math.max(a, b), 0);
  return result;
}
