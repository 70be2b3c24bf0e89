import { z } from 'zod';
import { STREAM_TYPES, type StreamstatGrouping } from '../../spec/streamstat.js';
import { echo, echoedList, integer, isoTime } from '../common/lenient.js';

/**
 * Response bodies of stream view statistics (spec B2), strict about what becomes a point and lenient about the rest
 * (see lenient.ts). Only the requested fields are present, so every value is optional. Echoes (fields, limit, sort,
 * granularity) are accepted in any scalar form (`"fields": "views,users"`, `"limit": "1000"`); other keys are
 * stripped.
 */
/** Sign and int64 range are left to the sink, which dead-letters just the bad row (see statistic/schemas.ts). */
const count = integer;
/** Window and bucket bounds become point times, so they must parse (UTC, with or without Z). */
const utcTime = isoTime;
const values = { views: count.optional(), users: count.optional(), views_max: count.optional() };
const envelope = {
  start: utcTime,
  end: utcTime,
  fields: echoedList,
  // Echo of the account filter; becomes the account tag (null/absent when none was sent, not shown in the spec).
  account: z.string().nullable().optional(),
};
const paging = { limit: echo, sort: echo };

export const streamstatTotalSchema = z.object({ ...envelope, ...values });
export type StreamstatTotal = z.infer<typeof streamstatTotalSchema>;

/** Result keys per grouping: what identifies an element. */
const GROUP_KEYS: Record<
  StreamstatGrouping,
  ReadonlyArray<'stream' | 'account' | 'stream_type' | 'browser' | 'platform'>
> = {
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
      if (element[key] === undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `missing result key of /${grouping}` });
    }
  });
}

export interface StreamstatGrouped {
  start: string;
  end: string;
  fields?: string[] | undefined;
  account?: string | null | undefined;
  limit?: Echo;
  sort?: Echo;
  result: StreamstatElement[];
}
type Echo = z.infer<typeof echo>;

export function streamstatGroupedSchema(grouping: StreamstatGrouping): z.ZodType<StreamstatGrouped> {
  return z.object({ ...envelope, ...paging, result: z.array(elementSchema(grouping)) });
}

const bucketSpan = { start: utcTime, end: utcTime };

/** `/` with granularity (shape not shown; chosen like statistic v3 /times): one bucket per element. */
export const streamstatTimesSchema = z.object({
  ...envelope,
  granularity: echo,
  result: z.array(z.object({ ...bucketSpan, ...values })),
});
export type StreamstatTimes = z.infer<typeof streamstatTimesSchema>;

export interface StreamstatTimesGrouped extends Omit<StreamstatGrouped, 'result'> {
  granularity?: Echo;
  result: Array<{ start: string; end: string; result: StreamstatElement[] }>;
}

/** A grouping endpoint with granularity (not shown; chosen like statistic v3 /times/<group>): buckets of groups. */
export function streamstatTimesGroupedSchema(grouping: StreamstatGrouping): z.ZodType<StreamstatTimesGrouped> {
  return z.object({
    ...envelope,
    ...paging,
    granularity: echo,
    result: z.array(z.object({ ...bucketSpan, result: z.array(elementSchema(grouping)) })),
  });
}
