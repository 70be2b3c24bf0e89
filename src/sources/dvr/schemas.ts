import { z } from 'zod';
import { decimal, integer } from '../common/lenient.js';

/**
 * Response bodies of the DVR API (spec 000), strict about what becomes a point and lenient about the rest (see
 * lenient.ts). Units of window/duration are not shown; the simulator and the measurements use seconds. `number`
 * fields accept fractions (the spec types them as number, not integer); timestamps are integers. Either may come as
 * an unambiguous string. `host` is an opaque identifier (real ones are hex strings), kept as sent. Unknown keys pass
 * through.
 */
/**
 * Success says `Completed`; sibling services of the platform send a numeric status (200). The HTTP status already
 * said success, so any other word or code is a malformed body: a DELETE must not be reported done on a doubtful answer.
 */
const completed = z
  .union([z.string(), z.number()])
  .refine(
    (s) => (typeof s === 'string' ? /^completed$/i.test(s) : s >= 200 && s <= 299),
    'Expected status Completed (or a 2xx code)',
  );
const unixSeconds = integer;
const nonNegative = decimal.pipe(z.number().nonnegative());

export const dvrRangeSchema = z.object({ from: unixSeconds, duration: nonNegative }).passthrough();
export type DvrRange = z.infer<typeof dvrRangeSchema>;

export const dvrBlockSchema = z
  .object({
    enabled: z.boolean(),
    window: nonNegative,
    duration: nonNegative,
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
    duration_sec: integer.optional(),
    to_ts: unixSeconds.optional(),
  })
  .passthrough();
export type DvrDeleteRangeResponse = z.infer<typeof dvrDeleteRangeResponseSchema>;

export const dvrDeleteAllResponseSchema = z
  .object({ status: completed, stream_name: z.string(), host: z.string(), all: z.literal(true) })
  .passthrough();
export type DvrDeleteAllResponse = z.infer<typeof dvrDeleteAllResponseSchema>;
