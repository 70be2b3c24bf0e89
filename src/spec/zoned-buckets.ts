import { DateTime } from 'luxon';
import type { Span } from '../spans.js';
import { bucketSpans, fixedLengthMs, type Granularity } from './granularity.js';

/**
 * The buckets of granularity.ts in an IANA time zone (the statistics API's `timezone`): calendar-aligned in the zone,
 * local midnights across DST changes included. Only the simulator answers in zones; the collector asks in UTC and
 * uses granularity.ts, so the time zone library is loaded by the simulator alone.
 */
export function zonedBucketStarts(fromMs: number, toMs: number, g: Granularity, timeZone: string): number[] {
  return zonedBucketSpans(fromMs, toMs, g, timeZone).map((s) => s.from);
}

/** The buckets as spans, clipped to [fromMs, toMs) (an unaligned window gets a partial first and last bucket). */
export function zonedBucketSpans(fromMs: number, toMs: number, g: Granularity, timeZone: string): Span[] {
  // UTC, the zone every question of the collector's is in, is plain Date arithmetic (granularity.ts): a property test
  // holds it equal to the time zone library's reading, which costs far more per bucket.
  return timeZone === 'UTC' ? bucketSpans(fromMs, toMs, g) : libraryBucketSpans(fromMs, toMs, g, timeZone);
}

/** zonedBucketSpans as the time zone library reads any zone, UTC included. */
export function libraryBucketSpans(fromMs: number, toMs: number, g: Granularity, timeZone: string): Span[] {
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

/** Units below a day are counted from local midnight; larger ones step in calendar units from the unit's start. */
function alignedStart(t: DateTime, g: Granularity): DateTime {
  const length = fixedLengthMs(g);
  if (g.unit === 'hour' || g.unit === 'minute' || g.unit === 'second') {
    const midnight = t.startOf('day');
    return midnight.plus({ milliseconds: Math.floor((t.toMillis() - midnight.toMillis()) / length!) * length! });
  }
  // luxon's startOf('week') is ISO: Monday.
  return t.startOf(g.unit);
}
