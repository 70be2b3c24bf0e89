import { z } from 'zod';
import { decimal, echo, integer, isoTime, keyText } from '../lenient.js';

/**
 * Response bodies of spec A3, strict about what becomes a point and lenient about the rest (see lenient.ts). Values
 * are optional because `fields` selects them; unknown keys pass through. Row keys become tags: text or numbers, kept
 * as sent (`code` as an integer or a string of one, which makes the same tag). The envelope's echoed filters become
 * tags too where a row lacks the key, so they are keys as well; other echoes (limit, offset, granularity…) are not.
 */

/**
 * Sign and int64 range are not checked here: one bad row must not fail the whole response (and its span forever).
 * The sink dead-letters such a row with its reason and writes the rest (the fields' `nonNegative` in the schema).
 */
const values = {
  traffic: integer.optional(),
  hits: integer.optional(),
  cache_ratio: decimal.pipe(z.number().max(1)).optional(),
  bandwidth: integer.optional(),
};

/** Keys of rows and of the envelope's echoed filters: each becomes a tag. */
const keys = {
  custom: keyText.optional(),
  referrer: keyText.optional(),
  code: integer.optional(),
  country: keyText.optional(),
  region: keyText.optional(),
  platform: keyText.optional(),
  browser: keyText.optional(),
  resource: keyText.optional(),
  host: keyText.optional(),
  path: keyText.optional(),
};

const rowSchema = z
  .object({
    ...values,
    ...keys,
    country_name: z.string().optional(),
    region_name: z.string().optional(),
    resource_name: z.string().optional(),
    account: z.string().optional(),
  })
  .passthrough();
export type StatisticRow = z.infer<typeof rowSchema>;

/** Echoed filters of the envelope: all optional; account may be null when none was sent. */
const envelope = {
  start: isoTime,
  end: isoTime,
  account: z.string().nullable().optional(),
  service: z.string().optional(),
  ...keys,
};

export const statisticTotalSchema = z.object({ ...envelope, ...values }).passthrough();
export type StatisticTotal = z.infer<typeof statisticTotalSchema>;

export const statisticGroupedSchema = z.object({ ...envelope, result: z.array(rowSchema) }).passthrough();
export type StatisticGrouped = z.infer<typeof statisticGroupedSchema>;

const bucketSpan = { start: isoTime, end: isoTime };

export const statisticTimesSchema = z
  .object({ ...envelope, granularity: echo, result: z.array(z.object({ ...bucketSpan, ...values }).passthrough()) })
  .passthrough();
export type StatisticTimes = z.infer<typeof statisticTimesSchema>;

const groupedBucketSchema = z.object({ ...bucketSpan, result: z.array(rowSchema) }).passthrough();
export type StatisticGroupedBucket = z.infer<typeof groupedBucketSchema>;

export const statisticTimesGroupedSchema = z
  .object({ ...envelope, granularity: echo, result: z.array(groupedBucketSchema) })
  .passthrough();
export type StatisticTimesGrouped = z.infer<typeof statisticTimesGroupedSchema>;
