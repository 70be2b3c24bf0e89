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
 * Starts of the buckets covering [fromMs, toMs) in UTC, aligned to calendar boundaries of the unit: minutes/hours/
 * seconds to multiples of the bucket length since midnight, days to midnight, weeks to Monday, months and years to
 * their first day. The first start is clipped to `fromMs` when `fromMs` is not aligned. In another zone (the
 * simulator's `timezone`): zoned-buckets.ts, which needs a time zone library the collector does not load.
 */
export function bucketStarts(fromMs: number, toMs: number, g: Granularity): number[] {
  return bucketSpans(fromMs, toMs, g).map((s) => s.from);
}

/** The buckets as spans, clipped to [fromMs, toMs) (an unaligned window gets a partial first and last bucket). */
export function bucketSpans(fromMs: number, toMs: number, g: Granularity): Span[] {
  const spans: Span[] = [];
  if (!(fromMs < toMs)) return spans;
  let start = bucketStartAt(fromMs, g);
  while (start < toMs) {
    const next = nextStart(start, g);
    spans.push({ from: Math.max(start, fromMs), to: Math.min(next, toMs) });
    start = next;
  }
  return spans;
}

/** Start of the bucket that contains `ms` (aligned as in bucketSpans, not clipped). */
export function bucketStartAt(ms: number, g: Granularity): number {
  const length = fixedLengthMs(g);
  if (SUB_DAY.has(g.unit)) {
    const midnight = ms - mod(ms, DAY);
    return midnight + Math.floor((ms - midnight) / length!) * length!;
  }
  const t = new Date(ms);
  if (g.unit === 'day') return Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate());
  if (g.unit === 'week') {
    const day = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate());
    return day - ((t.getUTCDay() + 6) % 7) * DAY; // back to Monday
  }
  if (g.unit === 'month') return Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1);
  return Date.UTC(t.getUTCFullYear(), 0, 1);
}

/** The start of the bucket after the one starting at the aligned `start`. */
function nextStart(start: number, g: Granularity): number {
  const length = fixedLengthMs(g);
  if (length !== undefined) return start + length;
  const t = new Date(start);
  const months = g.unit === 'month' ? g.count : 12 * g.count;
  return Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + months, 1);
}

const mod = (a: number, b: number): number => ((a % b) + b) % b;

/** Whether `zone` names an IANA time zone this runtime knows (as luxon's IANAZone.isValidZone decides it). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
