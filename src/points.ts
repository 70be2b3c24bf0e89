/**
 * The unit every source produces and every sink writes. Field values are plain JS values; the *type* each field is
 * written with comes from the measurement schema (src/schema.ts), never from how a number happens to look.
 */
export interface Point {
  measurement: string;
  /** Tag values are written exactly; an empty value becomes EMPTY_TAG (InfluxDB would drop the tag otherwise). */
  tags: Record<string, string>;
  fields: Record<string, number | boolean | string>;
  /** Epoch milliseconds: the start of the window or bucket the values describe. */
  time: number;
}

export type FieldType = 'integer' | 'float' | 'boolean' | 'string';

export interface FieldSchema {
  type: FieldType;
  description: string;
  unit?: string;
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
}

/** Placeholder for an empty tag value (e.g. an empty region_name), so the series is not silently merged. */
export const EMPTY_TAG = '(empty)';
