import { z } from 'zod';
import { KEY_TAGS, STATISTIC_KEYS, type KeyTable, type KeyTagName, type KeyType } from '../../spec/statistic.js';
import { decimal, echo, integer, isoTime, keyText } from '../common/lenient.js';

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

/** How a key's values are read: names are text as sent; codes, labels and the like text or numbers. */
const KEY_VALUES = { text: keyText, integer, name: z.string() } as const;
type KeyValueSchema<K extends KeyTagName> = z.ZodOptional<(typeof KEY_VALUES)[KeyTable[K]['type']]>;
type NamedKey = { [K in KeyTagName]: KeyTable[K]['type'] extends 'name' ? K : never }[KeyTagName];

function keySchemas<K extends KeyTagName>(which: (type: KeyType) => boolean) {
  const chosen = KEY_TAGS.filter((key) => which(STATISTIC_KEYS[key].type));
  return Object.fromEntries(chosen.map((key) => [key, KEY_VALUES[STATISTIC_KEYS[key].type].optional()])) as {
    [N in K]: KeyValueSchema<N>;
  };
}

/** Keys of rows and of the envelope's echoed filters (every key of the table but names): each becomes a tag. */
const keys = keySchemas<Exclude<KeyTagName, NamedKey>>((type) => type !== 'name');

const rowSchema = z
  .object({ ...values, ...keys, ...keySchemas<NamedKey>((type) => type === 'name'), account: z.string().optional() })
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
