/**
 * InfluxDB line protocol, `measurement,tag=v,… field=v,… time`, encoded straight into bytes: the measurement's name,
 * its field keys and each tag key and value are escaped and turned into UTF-8 once and then copied; numbers are written
 * as digits. Field types come from the measurement schema, never from how a value looks (a float 1 must not become an
 * integer field, or later writes conflict).
 */
import { tagText, type FieldType, type MeasurementSchema, type Point } from '../points.js';
import { type ByteTarget, ByteWriter } from './byte-writer.js';
import { EncodeError, InvalidValueError } from './errors.js';
import { escapeStringField, KEY_SPECIALS, MEASUREMENT_SPECIALS, type NameEscaper, nameEscaper } from './line-escape.js';
import type { BackslashDialect, Precision } from './types.js';

/** What encodeInto returns for a point without a line (no field has a finite value). */
export const NO_LINE = -1;

const SPACE = 0x20;
const COMMA = 0x2c;
const EQUALS = 0x3d;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const OPEN_PARENTHESIS = 0x28;
const QUOTE = 0x22;
const INTEGER_SUFFIX = 0x69;
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NANOSECONDS_OF_MS = Buffer.from('000000');
/** An int64 field holds [-2^63, 2^63 - 1]; as a double, 2^63 - 1 rounds up to 2^63, so that is the first misfit. */
const INT64_LIMIT = 2 ** 63;
/** Distinct tag values kept escaped; beyond it (a runaway cardinality), new values are escaped per point. */
const MAX_CACHED_TAG_VALUES = 100_000;

interface CompiledField {
  /** The escaped key and `=`. */
  key: Uint8Array;
  type: FieldType;
  nonNegative: boolean;
}

/** The tag keys of a point in the order it lists them, and sorted with their `,key=` bytes. */
interface TagLayout {
  listed: string[];
  sorted: Array<{ key: string; prefix: Uint8Array }>;
}

interface CompiledMeasurement {
  name: Uint8Array;
  fields: Map<string, CompiledField>;
  /** The tag layout of the last point: points of one measurement mostly list the same keys in the same order. */
  tags: TagLayout | undefined;
}

/**
 * Encodes points as lines into a ByteTarget. Throws EncodeError for a point outside the schema (a bug),
 * UnrepresentableError for a name the target's parser cannot read back exactly (a newline anywhere; with `verbatim`,
 * a trailing backslash) and InvalidValueError for a value that is no measurement (a negative count, an integer beyond
 * int64); the sink dead-letters the latter two. When several are wrong, the error is the one a reader of the fields
 * first, then the tags, then the time would meet.
 */
export class LineEncoder {
  private readonly escape: NameEscaper;
  private readonly measurements = new Map<string, CompiledMeasurement>();
  /** Tag value (as the point gives it) → its escaped text's bytes. */
  private readonly tagValues = new Map<string, Uint8Array>();
  private readonly out = new ByteWriter();

  constructor(
    private readonly precision: Precision,
    private readonly schema: ReadonlyMap<string, MeasurementSchema>,
    backslashes: BackslashDialect,
  ) {
    this.escape = nameEscaper(backslashes);
  }

  /**
   * Writes the point's line (without its newline) from `at`; returns the offset just past it, with room for one more
   * byte, or NO_LINE. Bytes past `at` are scratch until the caller commits them, so a throw leaves nothing behind.
   */
  encodeInto(point: Point, target: ByteTarget, at: number): number {
    const m = this.measurements.get(point.measurement) ?? this.compile(point.measurement);
    const out = this.out;
    out.begin(target, at);
    out.bytes(m.name);
    try {
      this.writeTags(m, point.tags);
    } catch (err) {
      // Rare (a name with no exact form): the fields' verdict comes first, as for a reader that checks them first.
      out.pos = at;
      if (!this.writeFields(m, point)) return NO_LINE;
      throw err;
    }
    out.byte(SPACE);
    if (!this.writeFields(m, point)) return NO_LINE;
    if (!Number.isFinite(point.time)) throw new EncodeError(point.measurement, undefined, `invalid time ${point.time}`);
    out.byte(SPACE);
    this.writeTime(point.time);
    out.room(1);
    return out.pos;
  }

  private compile(name: string): CompiledMeasurement {
    const def = this.schema.get(name);
    if (!def) throw new EncodeError(name, undefined, 'unknown measurement (not in the schema)');
    const fields = new Map<string, CompiledField>();
    for (const [key, field] of Object.entries(def.fields)) {
      fields.set(key, {
        key: Buffer.from(`${this.escape('field key', key, KEY_SPECIALS)}=`),
        type: field.type,
        nonNegative: field.nonNegative === true,
      });
    }
    const compiled = {
      name: Buffer.from(this.escape('measurement', name, MEASUREMENT_SPECIALS)),
      fields,
      tags: undefined,
    };
    this.measurements.set(name, compiled);
    return compiled;
  }

  /** `,key=value` per tag, keys sorted (the order InfluxDB stores series keys in: it sorts less). */
  private writeTags(m: CompiledMeasurement, tags: Point['tags']): void {
    const layout = m.tags;
    let listed = 0;
    let same = layout !== undefined;
    for (const key in tags) {
      if (same && layout!.listed[listed] !== key) same = false;
      listed++;
    }
    if (!same || listed !== layout!.listed.length) {
      this.writeTagsNewLayout(m, tags);
      return;
    }
    const out = this.out;
    for (const { key, prefix } of layout!.sorted) {
      out.bytes(prefix);
      const value = tags[key];
      if (!this.writePlainTagValue(value)) out.bytes(this.tagValue(value));
    }
  }

  /**
   * Most tag values (ids, hosts, accounts) are ASCII needing no escape and no placeholder: copied as they are, without
   * a look-up. False, with nothing written, for any other.
   */
  private writePlainTagValue(value: string | undefined): boolean {
    if (typeof value !== 'string') return false;
    const n = value.length;
    if (n === 0 || value.charCodeAt(0) === OPEN_PARENTHESIS) return false; // empty, or maybe a placeholder (tagText)
    const out = this.out;
    out.room(n);
    const buf = out.buf;
    let pos = out.pos;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c >= 0x80 || c === SPACE || c === COMMA || c === EQUALS || c === BACKSLASH || c === NEWLINE) return false;
      buf[pos++] = c;
    }
    out.pos = pos;
    return true;
  }

  /** Keys in an order not seen last: sorted again, and kept as the measurement's layout if every key has a form. */
  private writeTagsNewLayout(m: CompiledMeasurement, tags: Point['tags']): void {
    const listed = Object.keys(tags);
    const sorted = [...listed].sort();
    const out = this.out;
    const prefixes: Array<{ key: string; prefix: Uint8Array }> = [];
    for (const key of sorted) {
      const prefix = Buffer.from(`,${this.escape('tag key', key, KEY_SPECIALS)}=`);
      prefixes.push({ key, prefix });
      out.bytes(prefix);
      out.bytes(this.tagValue(tags[key]));
    }
    m.tags = { listed, sorted: prefixes };
  }

  private tagValue(value: string | undefined): Uint8Array {
    let bytes = this.tagValues.get(value as string);
    if (bytes === undefined) {
      bytes = Buffer.from(`${this.escape('tag value', tagText(value ?? ''), KEY_SPECIALS)}`);
      if (this.tagValues.size < MAX_CACHED_TAG_VALUES) this.tagValues.set(value as string, bytes);
    }
    return bytes;
  }

  /**
   * `key=value,…` for the fields with a finite value; false when there is none (the point has no line: a missing
   * value is left out, not written as a fake 0).
   */
  private writeFields(m: CompiledMeasurement, point: Point): boolean {
    const out = this.out;
    const fields = point.fields;
    let written = 0;
    for (const key in fields) {
      const field = m.fields.get(key);
      if (!field) throw new EncodeError(point.measurement, key, 'unknown field (not in the schema)');
      const value = fields[key];
      const type = field.type;
      if (field.nonNegative && typeof value === 'number' && Number.isFinite(value) && value < 0) {
        throw new InvalidValueError(
          point.measurement,
          key,
          value,
          `${value} is negative, which this ${type} field cannot be`,
        );
      }
      switch (type) {
        case 'integer':
          if (typeof value !== 'number') break;
          if (!Number.isFinite(value)) continue;
          if (!Number.isInteger(value)) throw new EncodeError(point.measurement, key, `integer field got ${value}`);
          if (value >= INT64_LIMIT || value < -INT64_LIMIT) {
            throw new InvalidValueError(point.measurement, key, value, `${BigInt(value)} does not fit an int64 field`);
          }
          if (written++ > 0) out.byte(COMMA);
          out.bytes(field.key);
          // String() would print 1e+21 for large values; BigInt prints every digit.
          if (Number.isSafeInteger(value)) out.integer(value);
          else out.ascii(BigInt(value).toString());
          out.byte(INTEGER_SUFFIX);
          continue;
        case 'float':
          if (typeof value !== 'number') break;
          if (!Number.isFinite(value)) continue;
          if (written++ > 0) out.byte(COMMA);
          out.bytes(field.key);
          // A number without the `i` suffix is a float in line protocol, so `1` is the float 1 (as the official
          // client writes it).
          out.float(value);
          continue;
        case 'boolean':
          if (typeof value !== 'boolean') break;
          if (written++ > 0) out.byte(COMMA);
          out.bytes(field.key);
          out.bytes(value ? TRUE : FALSE);
          continue;
        case 'string':
          if (typeof value !== 'string') break;
          if (written++ > 0) out.byte(COMMA);
          out.bytes(field.key);
          out.byte(QUOTE);
          out.utf8(escapeStringField(value));
          out.byte(QUOTE);
          continue;
      }
      throw new EncodeError(point.measurement, key, `${type} field got ${typeof value} ${JSON.stringify(value)}`);
    }
    return written > 0;
  }

  /** Epoch milliseconds as the precision's integer; nanoseconds as the milliseconds' digits and six zeros. */
  private writeTime(ms: number): void {
    const out = this.out;
    if (this.precision === 's') {
      out.integer(Math.floor(ms / 1000));
      return;
    }
    if (this.precision === 'ms') {
      out.integer(Math.floor(ms));
      return;
    }
    const whole = Math.floor(ms);
    if (whole === 0) {
      out.byte(0x30);
      return;
    }
    out.integer(whole);
    out.bytes(NANOSECONDS_OF_MS);
  }
}
