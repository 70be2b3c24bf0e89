import { z } from 'zod';
import { duration } from '../../config/fields/duration.js';
import { cronSchedule } from '../../config/fields/fields.js';
import { streamstatRule } from '../../plan/windows.js';
import { fixedLengthMs } from '../../spec/granularity.js';
import {
  STREAMSTAT_GRANULARITIES,
  STREAMSTAT_GROUPINGS,
  streamstatGranularity,
  type StreamstatGranularity,
} from '../../spec/streamstat.js';
import { ParameterError } from '../../errors.js';
import { asField, unique } from '../common/settings.js';
import { UNIQUES_PERIODS, type UniquesPeriod } from './measurements.js';

/** The length of a granularity the collector can follow; undefined for one whose buckets vary (P1W/P1M/P1Y…). */
function collectableStepMs(granularity: StreamstatGranularity): number | undefined {
  const ms = fixedLengthMs(streamstatGranularity(granularity));
  if (ms === undefined) return undefined;
  try {
    // The window rule decides (buckets must divide a day to match epoch-aligned windows), not a second list; lag and
    // span are the settings' own business, so a neutral pair is passed.
    streamstatRule(ms, 0, ms);
    return ms;
  } catch {
    return undefined;
  }
}

/** The spec's granularities the jobs can collect: PT1M … P1D. */
const COLLECTED_GRANULARITIES = STREAMSTAT_GRANULARITIES.filter((g) => collectableStepMs(g) !== undefined) as [
  StreamstatGranularity,
  ...StreamstatGranularity[],
];

/** `jobs.streamstat` (see src/sources/common/settings.ts for what a source's settings module holds). */
export const schema = z
  .object({
    enabled: z.boolean().prefault(true).describe('collect cdn_views (and cdn_users_*)'),
    granularity: z.enum(COLLECTED_GRANULARITIES).prefault('PT5M').describe('bucket size'),
    lag: duration.prefault('5m').describe('stream views are read this long after a bucket ends'),
    span: duration
      .prefault('31d')
      .describe(
        'widest time span one call covers: a cap (lower it for smaller answers); below it the answer size budget ' +
          'decides',
      ),
    groupings: z
      .array(z.enum(['total', ...STREAMSTAT_GROUPINGS] as const))
      .min(1)
      .prefault(['total', 'streams', 'stream-types'])
      .describe('groupings to collect (total and accounts both write cdn_views: list one); each costs calls'),
    uniques: z
      .array(z.enum(UNIQUES_PERIODS))
      .prefault([...UNIQUES_PERIODS])
      .describe(
        'periods to count unique users over (cdn_users_hourly, cdn_users_daily, per grouping), each read with its ' +
          'own calls once the period is over plus lag; [] disables',
      ),
    schedule: cronSchedule.prefault('*/1 * * * *'),
  })
  .strict()
  .prefault({})
  .describe('stream view statistics v2 (/app/streamstat/v2)');

export type StreamstatSettings = z.output<typeof schema>;

/** The bucket length: the schema admits only collectable granularities. */
export function stepMs(s: StreamstatSettings): number {
  return collectableStepMs(s.granularity)!;
}

export function check(s: StreamstatSettings): void {
  asField('span', () => streamstatRule(stepMs(s), s.lag, s.span));
  unique('groupings', s.groupings);
  unique('uniques', s.uniques);
  if (s.groupings.includes('total') && s.groupings.includes('accounts')) {
    // With each job's account filter, /accounts answers the account's total: the same points, for twice the calls.
    throw new ParameterError(
      `groupings.${s.groupings.indexOf('accounts')}`,
      'accounts writes the same cdn_views points as total; list one of them',
    );
  }
}

/** A bucket is read `lag` after it ends; the longest bucket collected (a day of uniques) decides. */
export function reachMs(s: StreamstatSettings): number | undefined {
  return s.enabled ? s.lag + Math.max(stepMs(s), ...s.uniques.map(uniquesStepMs)) : undefined;
}

/** The length of a uniques period (one hour or one day). */
export function uniquesStepMs(period: UniquesPeriod): number {
  return fixedLengthMs(streamstatGranularity(period))!;
}
