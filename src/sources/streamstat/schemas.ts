import { z } from 'zod';
import { STREAM_TYPES, STREAMSTAT_FIELDS, type StreamstatGrouping } from '../../spec/streamstat.js';
import { toMs } from '../../time.js';

/**
 * Response bodies of stream view statistics (spec B2). Only the requested fields are present, so every value is
 * optional. Echoed filters other than account are not needed and are stripped.
 */
/** Sign and int64 range are left to the sink, which dead-letters just the bad row (see statistic/schemas.ts). */
const count = z.number().int();
/** Window and bucket bounds become point times, so they must parse (UTC, with or without Z). */
const utcTime = z.string().refine((t) => Number.isFinite(toMs(t)), 'not an ISO 8601 time');
const values = { views: count.optional(), users: count.optional(), views_max: count.optional() };
const envelope = {
  start: utcTime,
  end: utcTime,
  fields: z.array(z.enum(STREAMSTAT_FIELDS)),
  // Echo of the account filter; null/absent when none was sent (not shown in the spec).
  account: z.string().nullable().optional(),
};
const paging = { limit: z.number().int().optional(), sort: z.string().optional() };

export const streamstatTotalSchema = z.object({ ...envelope, ...values });
export type StreamstatTotal = z.infer<typeof streamstatTotalSchema>;

/** Result keys per grouping: what identifies an element. */
const GROUP_KEYS: Record<StreamstatGrouping, ReadonlyArray<'stream' | 'account' | 'stream_type' | 'browser' | 'platform'>> = {
  streams: ['stream', 'account'],
  accounts: ['account'],
  'stream-types': ['stream_type'],
  browsers: ['browser'],
  platforms: ['platform'],
};

const elementBase = z.object({
  stream: z.string().optional(),
  account: z.string().optional(),
  stream_type: z.enum(STREAM_TYPES).optional(),
  browser: z.string().optional(),
  platform: z.string().optional(),
  ...values,
});
/** One element of any grouping: its key(s) and values (the keys of other groupings are absent). */
export type StreamstatElement = z.infer<typeof elementBase>;

function elementSchema(grouping: StreamstatGrouping): z.ZodType<StreamstatElement> {
  return elementBase.superRefine((element, ctx) => {
    for (const key of GROUP_KEYS[grouping]) {
      if (element[key] === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: `missing result key of /${grouping}` });
    }
  });
}

export interface StreamstatGrouped {
  start: string;
  end: string;
  fields: Array<(typeof STREAMSTAT_FIELDS)[number]>;
  account?: string | null;
  limit?: number;
  sort?: string;
  result: StreamstatElement[];
}

export function streamstatGroupedSchema(grouping: StreamstatGrouping): z.ZodType<StreamstatGrouped> {
  return z.object({ ...envelope, ...paging, result: z.array(elementSchema(grouping)) });
}

const bucketSpan = { start: utcTime, end: utcTime };

/** `/` with granularity (shape not shown; chosen like statistic v3 /times): one bucket per element. */
export const streamstatTimesSchema = z
  .object({
    ...envelope,
    granularity: z.string(),
    result: z.array(z.object({ ...bucketSpan, ...values })),
  });
export type StreamstatTimes = z.infer<typeof streamstatTimesSchema>;

export interface StreamstatTimesGrouped extends Omit<StreamstatGrouped, 'result'> {
  granularity: string;
  result: Array<{ start: string; end: string; result: StreamstatElement[] }>;
}

/** A grouping endpoint with granularity (not shown; chosen like statistic v3 /times/<group>): buckets of groups. */
export function streamstatTimesGroupedSchema(grouping: StreamstatGrouping): z.ZodType<StreamstatTimesGrouped> {
  return z
    .object({
      ...envelope,
      ...paging,
      granularity: z.string(),
      result: z.array(z.object({ ...bucketSpan, result: z.array(elementSchema(grouping)) })),
    });
}
