import { z } from 'zod';
import { toMs } from '../../time.js';

/**
 * Response bodies of spec A3. Unknown keys pass through (a service may add some). Values are optional because
 * `fields` selects them. Identifiers may come as numbers or strings (format not shown) and are kept as
 * sent; `code` is an integer per the spec.
 */
/** Bounds become point times through toMs (UTC when no zone), so the check must be toMs too, not Date.parse. */
const isoTime = z.string().refine((s) => Number.isFinite(toMs(s)), 'not an ISO 8601 time');
const text = z.union([z.string(), z.number()]);

/**
 * Sign and int64 range are not checked here: one bad row must not fail the whole response (and its span forever).
 * The sink dead-letters such a row with its reason and writes the rest (the fields' `nonNegative` in the schema).
 */
const values = {
  traffic: z.number().int().optional(),
  hits: z.number().int().optional(),
  cache_ratio: z.number().max(1).optional(),
  bandwidth: z.number().int().optional(),
};

const rowSchema = z
  .object({
    ...values,
    custom: text.optional(),
    referrer: text.optional(),
    code: z.number().int().optional(),
    country: text.optional(),
    region: text.optional(),
    country_name: z.string().optional(),
    region_name: z.string().optional(),
    browser: text.optional(),
    platform: text.optional(),
    resource: text.optional(),
    resource_name: z.string().optional(),
    host: z.string().optional(),
    path: z.string().optional(),
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
  country: text.optional(),
  region: text.optional(),
  platform: text.optional(),
  browser: text.optional(),
  host: z.string().optional(),
  path: z.string().optional(),
  referrer: text.optional(),
  code: z.number().int().optional(),
  custom: text.optional(),
  resource: text.optional(),
};

export const statisticTotalSchema = z.object({ ...envelope, ...values }).passthrough();
export type StatisticTotal = z.infer<typeof statisticTotalSchema>;

export const statisticGroupedSchema = z.object({ ...envelope, result: z.array(rowSchema) }).passthrough();
export type StatisticGrouped = z.infer<typeof statisticGroupedSchema>;

const bucketSpan = { start: isoTime, end: isoTime };

export const statisticTimesSchema = z
  .object({ ...envelope, granularity: z.string(), result: z.array(z.object({ ...bucketSpan, ...values }).passthrough()) })
  .passthrough();
export type StatisticTimes = z.infer<typeof statisticTimesSchema>;

const groupedBucketSchema = z.object({ ...bucketSpan, result: z.array(rowSchema) }).passthrough();
export type StatisticGroupedBucket = z.infer<typeof groupedBucketSchema>;

export const statisticTimesGroupedSchema = z
  .object({ ...envelope, granularity: z.string(), result: z.array(groupedBucketSchema) })
  .passthrough();
export type StatisticTimesGrouped = z.infer<typeof statisticTimesGroupedSchema>;
