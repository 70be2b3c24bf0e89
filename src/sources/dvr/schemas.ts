import { z } from 'zod';

/**
 * Response bodies of the DVR API (spec 000). Units of window/duration are not shown; the simulator and the
 * measurements use seconds. `number` fields accept fractions (the spec types them as number, not integer);
 * timestamps are integers. Unknown keys pass through.
 */
const completed = z.literal('Completed');
const unixSeconds = z.number().int();

export const dvrRangeSchema = z.object({ from: unixSeconds, duration: z.number().nonnegative() }).passthrough();
export type DvrRange = z.infer<typeof dvrRangeSchema>;

export const dvrBlockSchema = z
  .object({
    enabled: z.boolean(),
    window: z.number().nonnegative(),
    duration: z.number().nonnegative(),
    // With no ranges there is no first recording: a service may send 0, null or nothing (not shown).
    from: unixSeconds.nullable().optional(),
    ranges: z.array(dvrRangeSchema),
  })
  .passthrough();

export const dvrRecordSchema = z
  .object({ stream_name: z.string(), host: z.string(), is_alive: z.boolean(), dvr: dvrBlockSchema })
  .passthrough();
export type DvrRecord = z.infer<typeof dvrRecordSchema>;

export const dvrGetResponseSchema = z
  .object({ status: completed, stream_name: z.string(), data: z.array(dvrRecordSchema) })
  .passthrough();
export type DvrGetResponse = z.infer<typeof dvrGetResponseSchema>;

/** Each DELETE echoes stream_name and every body parameter that was sent. */
export const dvrDeleteRangeResponseSchema = z
  .object({
    status: completed,
    stream_name: z.string(),
    host: z.string(),
    from_ts: unixSeconds,
    duration_sec: z.number().int().optional(),
    to_ts: unixSeconds.optional(),
  })
  .passthrough();
export type DvrDeleteRangeResponse = z.infer<typeof dvrDeleteRangeResponseSchema>;

export const dvrDeleteAllResponseSchema = z
  .object({ status: completed, stream_name: z.string(), host: z.string(), all: z.literal(true) })
  .passthrough();
export type DvrDeleteAllResponse = z.infer<typeof dvrDeleteAllResponseSchema>;
