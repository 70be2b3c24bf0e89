import { DAY, HOUR, MINUTE } from '../../time.js';
import type { Span } from '../types.js';

/** Spec B: the only granularities stream view statistics accept. */
export const STREAMSTAT_GRANULARITIES = ['PT1M', 'PT5M', 'PT15M', 'PT1H', 'P1D', 'P1W', 'P1M', 'P1Y'] as const;
export type StreamstatGranularity = (typeof STREAMSTAT_GRANULARITIES)[number];

export function isStreamstatGranularity(value: string): value is StreamstatGranularity {
  return (STREAMSTAT_GRANULARITIES as readonly string[]).includes(value);
}

/** 1970-01-05 was the first Monday after the epoch: weeks are aligned to it (ISO weeks start on Monday). */
const FIRST_MONDAY = 4 * DAY;
const WEEK = 7 * DAY;

const FIXED_STEPS: Partial<Record<StreamstatGranularity, number>> = {
  PT1M: MINUTE,
  PT5M: 5 * MINUTE,
  PT15M: 15 * MINUTE,
  PT1H: HOUR,
  P1D: DAY,
};

/** Length of a bucket for the fixed-length granularities (up to P1D; P1W is 7 days); undefined for months and years. */
export function fixedStepMs(granularity: StreamstatGranularity): number | undefined {
  return granularity === 'P1W' ? WEEK : FIXED_STEPS[granularity];
}

/** Start of the UTC bucket that contains `ms`: fixed steps from the epoch, weeks from Monday, calendar months/years. */
export function bucketStartOf(granularity: StreamstatGranularity, ms: number): number {
  const step = FIXED_STEPS[granularity];
  if (step !== undefined) return Math.floor(ms / step) * step;
  if (granularity === 'P1W') return Math.floor((ms - FIRST_MONDAY) / WEEK) * WEEK + FIRST_MONDAY;
  const d = new Date(ms);
  return granularity === 'P1M' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) : Date.UTC(d.getUTCFullYear(), 0, 1);
}

/** Start of the bucket after the one that starts at `bucketStart`. */
export function nextBucketStart(granularity: StreamstatGranularity, bucketStart: number): number {
  const step = FIXED_STEPS[granularity];
  if (step !== undefined) return bucketStart + step;
  if (granularity === 'P1W') return bucketStart + WEEK;
  const d = new Date(bucketStart);
  return granularity === 'P1M'
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
    : Date.UTC(d.getUTCFullYear() + 1, 0, 1);
}

/**
 * The buckets covering [from, to), clipped to the window: an unaligned window gets a partial first and last bucket,
 * so that bucket values always add up to the window's values (the simulator's choice; not shown in the spec).
 */
export function bucketSpans(granularity: StreamstatGranularity, from: number, to: number): Span[] {
  const spans: Span[] = [];
  for (let start = bucketStartOf(granularity, from); start < to; start = nextBucketStart(granularity, start)) {
    spans.push({ from: Math.max(start, from), to: Math.min(nextBucketStart(granularity, start), to) });
  }
  return spans;
}
