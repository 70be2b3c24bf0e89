/**
 * The unit every source produces and every sink writes. Field values are plain JS values; the *type* each field is
 * written with comes from the measurement schema (src/schema/schema.ts), never from how a number happens to look.
 */
export interface Point {
  measurement: string;
  /** Tag values as the API gave them (empty included); the sink writes each as `tagText` says. */
  tags: Record<string, string>;
  fields: Record<string, number | boolean | string>;
  /** Epoch milliseconds: the start of the window or bucket the values describe. */
  time: number;
}

export type FieldType = 'integer' | 'float' | 'boolean' | 'string';

/**
 * How a field's values combine across time buckets and series, for dashboards, `verify` and docs/schema.md:
 * `sum` (additive counts and sizes), `max` (peaks), `last` (snapshots and unique counts: never summed, read at the
 * period they were counted over), `mean` (already an average), or a ratio of two summed fields (`sum(a) / sum(b)`).
 */
export type Aggregate =
  | 'sum'
  | 'max'
  | 'last'
  | 'mean'
  | { readonly ratio: readonly [numerator: string, denominator: string] };

export interface FieldSchema {
  type: FieldType;
  description: string;
  unit?: string;
  /** How to aggregate it (absent: not meaningful to aggregate, e.g. a boolean state). */
  aggregate?: Aggregate;
  /** A count, size, ratio or duration: a negative value is not a measurement (the point is dead-lettered). */
  nonNegative?: boolean;
}

export interface MeasurementSchema {
  name: string;
  description: string;
  /** Where the data comes from, e.g. `GET /app/metrics/v1/`. */
  source: string;
  /** Tag key → meaning. */
  tags: Record<string, string>;
  /** Field key → type and meaning. Points may carry a subset; never a field outside this map. */
  fields: Record<string, FieldSchema>;
  /** The natural InfluxQL query of this measurement (what a dashboard panel would run), shown in docs/schema.md. */
  query?: string;
}

/**
 * The tags among `values` that the API gave: null and undefined are left out (no such key), numbers become text, and
 * an empty value stays empty (the sink writes the placeholder, see tagText).
 */
export function presentTags(
  values: Readonly<Record<string, string | number | null | undefined>>,
): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries(values))
    if (value !== null && value !== undefined) tags[key] = String(value);
  return tags;
}

/** Placeholder for an empty tag value (e.g. an empty region_name), so the series is not silently merged. */
export const EMPTY_TAG = '(empty)';

/** `(empty)`, `((empty))`, …: a name that looks like the placeholder, balanced parentheses around `empty`. */
const PLACEHOLDER_LIKE = /^(\(+)empty(\)+)$/;

/**
 * The text a tag value is written as. InfluxDB drops an empty tag, so an empty value is written as EMPTY_TAG; a
 * value that itself reads like the placeholder gets one more pair of parentheses (`(empty)` → `((empty))`,
 * `((empty))` → `(((empty)))`), so a resource really named `(empty)` never merges with one that has no name.
 * Reading back: strip one pair from a placeholder-like value; EMPTY_TAG alone means empty.
 */
export function tagText(value: string): string {
  if (value === '') return EMPTY_TAG;
  const m = PLACEHOLDER_LIKE.exec(value);
  return m && m[1]!.length === m[2]!.length ? `(${value})` : value;
}
