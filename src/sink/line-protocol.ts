/**
 * InfluxDB line protocol: `measurement,tag=v,… field=v,… time`. Field types come from the measurement schema, never
 * from how a value looks (a float 1 must not become an integer field, or later writes conflict).
 */
import { tagText, type FieldSchema, type FieldType, type MeasurementSchema, type Point } from '../points.js';
import { SCHEMA } from '../schema/schema.js';
import { EncodeError, InvalidValueError, UnrepresentableError } from './errors.js';
import type { BackslashDialect, Precision } from './types.js';

export interface EncodeOptions {
  /** Defaults to the collector's SCHEMA. */
  schema?: ReadonlyMap<string, MeasurementSchema>;
  /** Defaults to `verbatim` (InfluxDB 1.x/2.x). */
  backslashes?: BackslashDialect;
}

/** Turns a point into one line, or undefined when no field has a writable (finite) value. */
export type PointEncoder = (point: Point) => string | undefined;

/** The characters each part escapes with a backslash; newlines cannot be written in names at all. */
const MEASUREMENT_SPECIALS = /[, ]/g;
const KEY_SPECIALS = /[, =]/g;
const NEEDS_WORK = /[, =\\\n]/;

/**
 * Builds an encoder (caches escaped names per measurement, so encoding is a few string joins per point).
 * Throws EncodeError for a point outside the schema (a bug), UnrepresentableError for a name the target's parser
 * cannot read back exactly (a newline anywhere; with `verbatim`, a trailing backslash) and InvalidValueError for a
 * value that is no measurement (a negative count, an integer beyond int64); the sink dead-letters the latter two.
 */
export function createEncoder(precision: Precision = 's', options: EncodeOptions = {}): PointEncoder {
  const schema = options.schema ?? SCHEMA;
  const escapeName = nameEscaper(options.backslashes ?? 'verbatim');
  const stamp = timestamp(precision);
  const measurements = new Map<string, CompiledMeasurement>();
  const tagCache = new Map<string, string>();

  const compile = (name: string): CompiledMeasurement => {
    const def = schema.get(name);
    if (!def) throw new EncodeError(name, undefined, 'unknown measurement (not in the schema)');
    const fields = new Map<string, CompiledField>();
    for (const [key, field] of Object.entries(def.fields)) {
      fields.set(key, {
        key: escapeName('field key', key, KEY_SPECIALS),
        type: field.type,
        nonNegative: field.nonNegative === true,
      });
    }
    const compiled = { name: escapeName('measurement', name, MEASUREMENT_SPECIALS), fields };
    measurements.set(name, compiled);
    return compiled;
  };
  // Tag keys and values repeat across points (a handful of resources, countries…): escape each once.
  const tag = (part: string, text: string): string => {
    let escaped = tagCache.get(text);
    if (escaped === undefined) {
      escaped = escapeName(part, text, KEY_SPECIALS);
      if (tagCache.size < 100_000) tagCache.set(text, escaped);
    }
    return escaped;
  };

  return (point) => {
    const m = measurements.get(point.measurement) ?? compile(point.measurement);
    let fields = '';
    for (const key in point.fields) {
      const field = m.fields.get(key);
      if (!field) throw new EncodeError(point.measurement, key, 'unknown field (not in the schema)');
      const value = encodeFieldValue(point.measurement, key, field, point.fields[key]);
      if (value === undefined) continue;
      fields += `${(fields === '' ? '' : ',') + field.key}=${value}`;
    }
    if (fields === '') return undefined;
    let line = m.name;
    for (const key of Object.keys(point.tags).sort()) {
      const value = point.tags[key];
      line += `,${tag('tag key', key)}=${tag('tag value', tagText(value ?? ''))}`;
    }
    if (!Number.isFinite(point.time)) throw new EncodeError(point.measurement, undefined, `invalid time ${point.time}`);
    return `${line} ${fields} ${stamp(point.time)}`;
  };
}

/** Epoch milliseconds as the precision's integer; nanoseconds as text (beyond 2^53, a number would round). */
function timestamp(precision: Precision): (ms: number) => string {
  if (precision === 's') return (ms) => String(Math.floor(ms / 1000));
  if (precision === 'ms') return (ms) => String(Math.floor(ms));
  return (ms) => {
    const whole = Math.floor(ms);
    return whole === 0 ? '0' : `${whole}000000`;
  };
}

/** One point as a line (see createEncoder); prefer createEncoder for many points. */
export function encodePoint(point: Point, precision: Precision = 's', options: EncodeOptions = {}): string | undefined {
  return createEncoder(precision, options)(point);
}

interface CompiledField {
  key: string;
  type: FieldType;
  nonNegative: boolean;
}

interface CompiledMeasurement {
  name: string;
  fields: Map<string, CompiledField>;
}

/** An int64 field holds [-2^63, 2^63 - 1]; as a double, 2^63 - 1 rounds up to 2^63, so that is the first misfit. */
const INT64_LIMIT = 2 ** 63;

/**
 * Field value literal; undefined for a non-finite number, which line protocol cannot express: the field is left out
 * of the point (a missing value, not a fake 0).
 */
function encodeFieldValue(
  measurement: string,
  key: string,
  field: Pick<FieldSchema, 'type' | 'nonNegative'>,
  value: unknown,
): string | undefined {
  const { type } = field;
  if (field.nonNegative && typeof value === 'number' && Number.isFinite(value) && value < 0) {
    throw new InvalidValueError(measurement, key, value, `${value} is negative, which this ${type} field cannot be`);
  }
  switch (type) {
    case 'integer':
      if (typeof value !== 'number') break;
      if (!Number.isFinite(value)) return undefined;
      if (!Number.isInteger(value)) throw new EncodeError(measurement, key, `integer field got ${value}`);
      if (value >= INT64_LIMIT || value < -INT64_LIMIT) {
        throw new InvalidValueError(measurement, key, value, `${BigInt(value)} does not fit an int64 field`);
      }
      // String() would print 1e+21 for large values; BigInt prints every digit.
      return `${Number.isSafeInteger(value) ? String(value) : BigInt(value).toString()}i`;
    case 'float':
      if (typeof value !== 'number') break;
      // A number without the `i` suffix is a float in line protocol, so `1` is the float 1 (as the official client
      // writes it).
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      if (typeof value !== 'boolean') break;
      return value ? 'true' : 'false';
    case 'string':
      if (typeof value !== 'string') break;
      return `"${escapeStringField(value)}"`;
  }
  throw new EncodeError(measurement, key, `${type} field got ${typeof value} ${JSON.stringify(value)}`);
}

/** Inside a quoted string field only `"` and `\` are escaped; a newline is fine there (the parser tracks the quotes).
 * */
export function escapeStringField(value: string): string {
  return /["\\]/.test(value) ? value.replace(/["\\]/g, '\\$&') : value;
}

type NameEscaper = (part: string, text: string, specials: RegExp) => string;

/** Escapes a measurement, key or tag value for the target's backslash dialect. */
export function nameEscaper(dialect: BackslashDialect): NameEscaper {
  return (part, text, specials) => {
    if (!NEEDS_WORK.test(text)) return text;
    if (text.includes('\n'))
      throw new UnrepresentableError(part, text, 'line protocol cannot carry a newline in a name or tag');
    if (dialect === 'escaped') return text.replace(/\\/g, '\\\\').replace(specials, '\\$&');
    // verbatim: the Go parser treats `\` before a special as an escape and leaves every other backslash alone, so a
    // backslash before a special reads back right once the special is escaped (`a\,b` → `a\\,b`). A trailing one
    // would escape the separator that follows, and the server rejects the line: no exact form exists.
    if (text.endsWith('\\')) {
      throw new UnrepresentableError(
        part,
        text,
        'InfluxDB 1.x/2.x line protocol cannot end a name or tag with a backslash',
      );
    }
    return text.replace(specials, '\\$&');
  };
}
