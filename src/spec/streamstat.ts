import { parseGranularity, type Granularity } from './granularity.js';

/** Stream view statistics v2 (spec 002, part B): its endpoints, fields and granularities, read by client and simulator.
 * */

/** Spec B2: the grouping endpoints (the plain total is `/`). */
export const STREAMSTAT_GROUPINGS = ['streams', 'accounts', 'stream-types', 'browsers', 'platforms'] as const;
export type StreamstatGrouping = (typeof STREAMSTAT_GROUPINGS)[number];

export const STREAMSTAT_FIELDS = ['views', 'users', 'views_max'] as const;
export type StreamstatField = (typeof STREAMSTAT_FIELDS)[number];

export const STREAM_TYPES = ['live', 'vod', 'unknown'] as const;
export type StreamType = (typeof STREAM_TYPES)[number];

export type StreamstatLanguage = 'en' | 'ru';

/** Spec B: the only granularities stream view statistics accept. */
export const STREAMSTAT_GRANULARITIES = ['PT1M', 'PT5M', 'PT15M', 'PT1H', 'P1D', 'P1W', 'P1M', 'P1Y'] as const;
export type StreamstatGranularity = (typeof STREAMSTAT_GRANULARITIES)[number];

export function isStreamstatGranularity(value: string): value is StreamstatGranularity {
  return (STREAMSTAT_GRANULARITIES as readonly string[]).includes(value);
}

/**
 * An allowed granularity in the shared grammar (spec/granularity.ts), whose bucket arithmetic applies; streamstat's
 * buckets are in UTC. An unaligned window gets a partial first and last bucket, so that bucket values always add up
 * to the window's values (the simulator's choice; not shown in the spec).
 */
export function streamstatGranularity(granularity: StreamstatGranularity): Granularity {
  return parseGranularity(granularity)!;
}
