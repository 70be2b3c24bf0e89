import { bucketSpans as spansOf, bucketStartAt, fixedLengthMs, parseGranularity, type Granularity } from '../granularity.js';
import type { Span } from '../types.js';

/** Spec B: the only granularities stream view statistics accept. */
export const STREAMSTAT_GRANULARITIES = ['PT1M', 'PT5M', 'PT15M', 'PT1H', 'P1D', 'P1W', 'P1M', 'P1Y'] as const;
export type StreamstatGranularity = (typeof STREAMSTAT_GRANULARITIES)[number];

export function isStreamstatGranularity(value: string): value is StreamstatGranularity {
  return (STREAMSTAT_GRANULARITIES as readonly string[]).includes(value);
}

/** The allowed list parsed by the shared grammar (src/sources/granularity.ts); buckets are in UTC. */
function parsed(granularity: StreamstatGranularity): Granularity {
  return parseGranularity(granularity)!;
}

/** Start of the UTC bucket that contains `ms`: minutes to days from midnight, weeks from Monday, calendar months/years. */
export function bucketStartOf(granularity: StreamstatGranularity, ms: number): number {
  return bucketStartAt(ms, parsed(granularity));
}

/** Length of a fixed-length granularity (PT1M … P1W); undefined for months and years. */
export function fixedStepMs(granularity: StreamstatGranularity): number | undefined {
  return fixedLengthMs(parsed(granularity));
}

/**
 * The buckets covering [from, to), clipped to the window: an unaligned window gets a partial first and last bucket,
 * so that bucket values always add up to the window's values (the simulator's choice; not shown in the spec).
 */
export function bucketSpans(granularity: StreamstatGranularity, from: number, to: number): Span[] {
  return spansOf(from, to, parsed(granularity));
}
