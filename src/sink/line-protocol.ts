/**
 * InfluxDB line protocol as text, a line per point: for callers other than the sink, which encodes into its batches'
 * bytes directly (line-encoder.ts); both are the same encoder, so the text is exactly the bytes the sink sends.
 */
import type { MeasurementSchema, Point } from '../points.js';
import { GrowingBytes } from './byte-writer.js';
import { LineEncoder, NO_LINE } from './line-encoder.js';
import type { BackslashDialect, Precision } from './types.js';

export interface EncodeOptions {
  /** Each measurement's field types; whoever builds the encoder passes it (the sink knows no schema of its own). */
  schema: ReadonlyMap<string, MeasurementSchema>;
  /** Defaults to `verbatim` (InfluxDB 1.x/2.x). */
  backslashes?: BackslashDialect;
}

/** Turns a point into one line, or undefined when no field has a writable (finite) value. */
export type PointEncoder = (point: Point) => string | undefined;

/** The LineEncoder of a precision and options, with their defaults. */
export function lineEncoder(precision: Precision = 's', options: EncodeOptions): LineEncoder {
  return new LineEncoder(precision, options.schema, options.backslashes ?? 'verbatim');
}

/** Builds a text encoder; it throws as LineEncoder does. */
export function createEncoder(precision: Precision = 's', options: EncodeOptions): PointEncoder {
  const encoder = lineEncoder(precision, options);
  const scratch = new GrowingBytes();
  return (point) => {
    const end = encoder.encodeInto(point, scratch, 0);
    return end === NO_LINE ? undefined : scratch.bytes.toString('utf8', 0, end);
  };
}

/** One point as a line (see createEncoder); prefer createEncoder for many points. */
export function encodePoint(point: Point, precision: Precision = 's', options: EncodeOptions): string | undefined {
  return createEncoder(precision, options)(point);
}
