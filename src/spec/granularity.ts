import { DateTime } from 'luxon';
import type { Span } from '../spans.js';
import { DAY, HOUR, MINUTE } from '../time.js';

/**
 * Bucket sizes of the statistics APIs: the spec's simplified ISO 8601 duration `P[n]Y[n]M[n]DT[n]H[n]M[n]S` with
 * exactly
 * one non-zero component (P1M and PT5M are valid, P1DT12H is not), plus `PnW` (streamstat allows P1W).
 */
export type GranularityUnit = 'year' | 'month' | 'week' | 'day' | 'hour' | 'minute' | 'second';

export interface Granularity {
  unit: GranularityUnit;
  count: number;
  /** The text as given, e.g. `PT5M`. */
  text: string;
}

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const WEEKS = /^P(\d+)W$/;
const DURATION_UNITS: GranularityUnit[] = ['year', 'month', 'day', 'hour', 'minute', 'second'];

/** Parses a granularity; undefined when the text is not one (the caller names the parameter in its error). */
export function parseGranularity(text: string): Granularity | undefined {
  const weeks = WEEKS.exec(text);
  if (weeks) return positive(Number(weeks[1]), 'week', text);
  const match = DURATION.exec(text);
  // `P` alone and a `T` without any time component are not durations.
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const present = DURATION_UNITS.map((unit, i) => ({ unit, value: match[i + 1] })).filter((c) => c.value !== undefined);
  const nonZero = present.filter((c) => Number(c.value) !== 0);
  if (nonZero.length !== 1) return undefined;
  return positive(Number(nonZero[0]!.value), nonZero[0]!.unit, text);
}

function positive(count: number, unit: GranularityUnit, text: string): Granularity | undefined {
  return Number.isSafeInteger(count) && count > 0 ? { unit, count, text } : undefined;
}

const UNIT_MS: Partial<Record<GranularityUnit, number>> = {
  second: 1000,
  minute: MINUTE,
  hour: HOUR,
  day: DAY,
  week: 7 * DAY,
};

/**
 * Length in ms of a fixed-length granularity (seconds to weeks, as measured in UTC); undefined for months and years.
 * Days and weeks are fixed only in zones without DST changes; bucketStarts handles zones properly.
 */
export function fixedLengthMs(g: Granularity): number | undefined {
  const unitMs = UNIT_MS[g.unit];
  return unitMs === undefined ? undefined : unitMs * g.count;
}

/** Units below a day are counted from local midnight; larger ones step in calendar units from the unit's start. */
const SUB_DAY: ReadonlySet<GranularityUnit> = new Set(['hour', 'minute', 'second']);

/**
 * Starts of the buckets covering [fromMs, toMs), aligned to calendar boundaries of the unit in `timeZone` (IANA):
 * minutes/hours/seconds to multiples of the bucket length since local midnight, days to local midnight, weeks to
 * Monday, months and years to their first day. The first start is clipped to `fromMs` when `fromMs` is not aligned.
 */
export function bucketStarts(fromMs: number, toMs: number, g: Granularity, timeZone = 'UTC'): number[] {
  return bucketSpans(fromMs, toMs, g, timeZone).map((s) => s.from);
}

/** The buckets as spans, clipped to [fromMs, toMs) (an unaligned window gets a partial first and last bucket). */
export function bucketSpans(fromMs: number, toMs: number, g: Granularity, timeZone = 'UTC'): Span[] {
  const spans: Span[] = [];
  if (!(fromMs < toMs)) return spans;
  const first = DateTime.fromMillis(fromMs, { zone: timeZone });
  if (!first.isValid) throw new RangeError(`unknown time zone "${timeZone}"`);
  let start = alignedStart(first, g);
  while (start.toMillis() < toMs) {
    const next = start.plus({ [`${g.unit}s`]: g.count });
    spans.push({ from: Math.max(start.toMillis(), fromMs), to: Math.min(next.toMillis(), toMs) });
    start = next;
  }
  return spans;
}

/** Start of the bucket that contains `ms` (aligned as in bucketSpans, not clipped). */
export function bucketStartAt(ms: number, g: Granularity, timeZone = 'UTC'): number {
  return alignedStart(DateTime.fromMillis(ms, { zone: timeZone }), g).toMillis();
}

function alignedStart(t: DateTime, g: Granularity): DateTime {
  if (SUB_DAY.has(g.unit)) {
    const midnight = t.startOf('day');
    const length = fixedLengthMs(g)!;
    return midnight.plus({ milliseconds: Math.floor((t.toMillis() - midnight.toMillis()) / length) * length });
  }
  // luxon's startOf('week') is ISO: Monday.
  return t.startOf(g.unit);
}
