import { describe, expect, it } from 'vitest';
import { EMPTY_TAG, tagText, type Point } from '../../src/points.js';
import { EncodeError, InvalidValueError, UnrepresentableError } from '../../src/sink/errors.js';
import { createEncoder, encodePoint, type EncodeOptions } from '../../src/sink/line-protocol.js';
import { testSchema } from './schema.js';

const schema = testSchema({
  m: { i: 'integer', f: 'float', b: 'boolean', s: 'string' },
  'cpu load,x': { 'the value': 'float', 'a=b': 'integer' },
});
const T = Date.UTC(2024, 0, 1, 12, 0); // minute-aligned
const point = (over: Partial<Point> = {}): Point => ({
  measurement: 'm',
  tags: {},
  fields: { i: 1 },
  time: T,
  ...over,
});
const verbatim: EncodeOptions = { schema, backslashes: 'verbatim' };
const escaped: EncodeOptions = { schema, backslashes: 'escaped' };

describe('field types follow the schema, not the value', () => {
  it.each([
    [{ i: 1 }, 'i=1i'],
    [{ i: -42 }, 'i=-42i'],
    [{ i: 2 ** 60 }, 'i=1152921504606846976i'],
    [{ f: 1 }, 'f=1'],
    [{ f: 0.25 }, 'f=0.25'],
    [{ f: -1.5e-7 }, 'f=-1.5e-7'],
    [{ b: true }, 'b=true'],
    [{ b: false }, 'b=false'],
    [{ s: 'plain' }, 's="plain"'],
    [{ s: 'say "hi" \\ bye\\' }, 's="say \\"hi\\" \\\\ bye\\\\"'],
    [{ s: 'two\nlines' }, 's="two\nlines"'],
  ])('%j → %s', (fields, expected) => {
    expect(encodePoint(point({ fields }), 's', verbatim)).toBe(`m ${expected} ${T / 1000}`);
  });

  it('writes fields in the point order and joins them with commas', () => {
    expect(encodePoint(point({ fields: { f: 2.5, i: 3, b: true } }), 's', verbatim)).toBe(
      `m f=2.5,i=3i,b=true ${T / 1000}`,
    );
  });

  it('drops non-finite numbers from the point, and the point when nothing is left', () => {
    expect(encodePoint(point({ fields: { i: 5, f: NaN } }), 's', verbatim)).toBe(`m i=5i ${T / 1000}`);
    expect(encodePoint(point({ fields: { f: Infinity, i: -Infinity } }), 's', verbatim)).toBeUndefined();
  });

  it.each([
    ['unknown measurement', point({ measurement: 'nope' }), undefined],
    ['unknown field', point({ fields: { extra: 1 } }), 'extra'],
    ['fraction in an integer field', point({ fields: { i: 1.5 } }), 'i'],
    ['string in a float field', point({ fields: { f: '1' } }), 'f'],
    ['number in a boolean field', point({ fields: { b: 1 } }), 'b'],
    ['number in a string field', point({ fields: { s: 1 } }), 's'],
  ])('%s is a typed EncodeError naming it', (_label, p, field) => {
    const run = () => encodePoint(p, 's', verbatim);
    expect(run).toThrow(EncodeError);
    try {
      run();
    } catch (err) {
      expect((err as EncodeError).measurement).toBe(p.measurement);
      expect((err as EncodeError).field).toBe(field);
    }
  });
});

describe('values that are no measurement', () => {
  const counts: EncodeOptions = {
    schema: new Map([
      [
        'c',
        {
          name: 'c',
          description: '',
          source: '',
          tags: {},
          fields: {
            n: { type: 'integer', description: '', nonNegative: true },
            r: { type: 'float', description: '', nonNegative: true },
          },
        },
      ],
    ]),
  };
  const line = (fields: Point['fields']) => encodePoint({ measurement: 'c', tags: {}, fields, time: T }, 's', counts);

  it('a negative value in a non-negative field is an InvalidValueError naming the field', () => {
    for (const fields of [{ n: -1 }, { r: -0.001 }] as Array<Point['fields']>) {
      const err = (() => {
        try {
          line(fields);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(InvalidValueError);
      expect((err as InvalidValueError).field).toBe(Object.keys(fields)[0]);
    }
    expect(line({ n: 0, r: -0 })).toBe(`c n=0i,r=0 ${T / 1000}`);
  });

  it('an integer outside int64 is an InvalidValueError; the int64 edges are written', () => {
    expect(() => encodePoint(point({ fields: { i: 2 ** 63 } }), 's', verbatim)).toThrow(InvalidValueError);
    expect(() => encodePoint(point({ fields: { i: -(2 ** 64) } }), 's', verbatim)).toThrow(/does not fit an int64/);
    expect(encodePoint(point({ fields: { i: -(2 ** 63) } }), 's', verbatim)).toContain('i=-9223372036854775808i');
    expect(encodePoint(point({ fields: { i: 2 ** 63 - 1024 } }), 's', verbatim)).toContain('i=9223372036854774784i');
  });
});

describe('names and tags', () => {
  it.each([
    ['', '(empty)'],
    ['(empty)', '((empty))'],
    ['((empty))', '(((empty)))'],
    ['(empty', '(empty'],
    ['((empty)', '((empty)'],
    ['empty', 'empty'],
    ['x(empty)', 'x(empty)'],
  ])('tag value %j is written as %j: one more pair of parentheses for a placeholder look-alike', (value, text) => {
    expect(tagText(value)).toBe(text);
    expect(encodePoint(point({ tags: { t: value } }), 's', verbatim)).toBe(`m,t=${text} i=1i ${T / 1000}`);
  });

  it('sorts tag keys and replaces empty values with EMPTY_TAG', () => {
    const line = encodePoint(point({ tags: { zone: 'eu', account: '', host: 'h1' } }), 's', verbatim);
    expect(line).toBe(`m,account=${EMPTY_TAG.replace(/ /g, '\\ ')},host=h1,zone=eu i=1i ${T / 1000}`);
  });

  it('escapes measurement (comma, space) and field keys (comma, space, =)', () => {
    const p: Point = { measurement: 'cpu load,x', tags: {}, fields: { 'the value': 1, 'a=b': 2 }, time: T };
    expect(encodePoint(p, 's', verbatim)).toBe(`cpu\\ load\\,x the\\ value=1,a\\=b=2i ${T / 1000}`);
  });

  // [tag value, verbatim (InfluxDB 1.x/2.x), escaped (VictoriaMetrics/3.x)]
  it.each([
    ['video cdn', 'video\\ cdn', 'video\\ cdn'],
    ['static,assets', 'static\\,assets', 'static\\,assets'],
    ['api=v2', 'api\\=v2', 'api\\=v2'],
    ['quoted "live"', 'quoted\\ "live"', 'quoted\\ "live"'],
    ['Видео', 'Видео', 'Видео'],
    ['back\\slash', 'back\\slash', 'back\\\\slash'],
    ['a\\,b', 'a\\\\,b', 'a\\\\\\,b'],
    ['a\\ b', 'a\\\\ b', 'a\\\\\\ b'],
    ['tab\there', 'tab\there', 'tab\there'],
    ['trailing\\', undefined, 'trailing\\\\'],
  ])('tag value %j', (value, forVerbatim, forEscaped) => {
    const line = (options: EncodeOptions) => encodePoint(point({ tags: { 'k ey': value } }), 's', options);
    expect(line(escaped)).toBe(`m,k\\ ey=${forEscaped} i=1i ${T / 1000}`);
    if (forVerbatim === undefined) expect(() => line(verbatim)).toThrow(UnrepresentableError);
    else expect(line(verbatim)).toBe(`m,k\\ ey=${forVerbatim} i=1i ${T / 1000}`);
  });

  it('refuses a newline in a tag (no line protocol can carry it) instead of writing a different value', () => {
    for (const options of [verbatim, escaped]) {
      expect(() => encodePoint(point({ tags: { k: 'two\nlines' } }), 's', options)).toThrow(UnrepresentableError);
    }
  });
});

describe('timestamps', () => {
  it('writes seconds by default and milliseconds on request, flooring sub-unit parts', () => {
    const encode = createEncoder(undefined, verbatim);
    expect(encode(point({ time: T + 999 }))).toBe(`m i=1i ${T / 1000}`);
    expect(createEncoder('ms', verbatim)(point({ time: T + 999 }))).toBe(`m i=1i ${T + 999}`);
  });

  it('rejects a non-finite time as a bug', () => {
    expect(() => encodePoint(point({ time: NaN }), 's', verbatim)).toThrow(EncodeError);
  });
});
