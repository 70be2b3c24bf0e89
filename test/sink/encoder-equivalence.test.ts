/**
 * The sink encodes points straight into bytes (LineEncoder); the lines must stay exactly what the string encoder it
 * replaced wrote (test/helpers/reference-encoder.ts): the same bytes, or the same error class and message, for random
 * hostile points — unicode, escapes, control characters, empty strings, every number shape, booleans, wrong types —
 * encoded in sequences by one encoder each, so the caches of names, tag values and tag layouts are exercised too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldType, MeasurementSchema, Point } from '../../src/points.js';
import { ByteWriter, GrowingBytes } from '../../src/sink/byte-writer.js';
import { LineBatch } from '../../src/sink/line-batch.js';
import { lineEncoder } from '../../src/sink/line-protocol.js';
import type { BackslashDialect, Precision } from '../../src/sink/types.js';
import { anyCodePoints } from '../helpers/any-text.js';
import { createReferenceEncoder } from '../helpers/reference-encoder.js';
import { withoutStacks } from '../helpers/without-stacks.js';

const hostile = fc.oneof(
  fc.string({ maxLength: 10 }),
  anyCodePoints({ maxLength: 8 }),
  fc.string({
    unit: fc.constantFrom(' ', ',', '=', '\\', '"', '\n', '\t', '\0', 'é', '😀', 'a', '(', ')'),
    maxLength: 8,
  }),
  fc.constantFrom('', '(empty)', '((empty))', '(empty', 'a\\', '\\', 'a\\,b', 'Видео 日本', '\u0000', '\r\n', '\u2028'),
);

/** Numbers of every shape: integers small and beyond 2^53 and int64, short decimals, any double, the odd ones. */
const number = fc.oneof(
  fc.integer(),
  fc
    .integer({ min: -1_000_000_000, max: 1_000_000_000 })
    .chain((n) => fc.constantFrom(n / 10, n / 100, n / 1e4, n / 1e9)),
  fc.double(),
  fc.maxSafeInteger(),
  fc.constantFrom(-0, 0.1 + 0.2, 1e21, 1e-7, 1e-6, 2 ** 53, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 2 ** 64, 5e-324, 1 / 3),
);
const value = fc.oneof(
  { weight: 6, arbitrary: number },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: hostile },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, [], {}, 1n) },
);
const fieldType = fc.constantFrom<FieldType>('integer', 'float', 'boolean', 'string');

interface Case {
  schema: ReadonlyMap<string, MeasurementSchema>;
  precision: Precision;
  backslashes: BackslashDialect;
  points: Point[];
}

const cases: fc.Arbitrary<Case> = fc
  .record({
    measurements: fc.uniqueArray(hostile, { minLength: 1, maxLength: 3 }),
    fieldKeys: fc.uniqueArray(hostile, { minLength: 1, maxLength: 5 }),
    types: fc.array(fc.tuple(fieldType, fc.boolean()), { minLength: 5, maxLength: 5 }),
    precision: fc.constantFrom<Precision>('s', 'ms', 'ns'),
    backslashes: fc.constantFrom<BackslashDialect>('verbatim', 'escaped'),
  })
  .chain(({ measurements, fieldKeys, types, precision, backslashes }) => {
    const fields = Object.fromEntries(
      fieldKeys.map((key, i) => [key, { type: types[i]![0], nonNegative: types[i]![1], description: 'test' }]),
    );
    const schema = new Map(measurements.map((name) => [name, { name, description: '', source: '', tags: {}, fields }]));
    const tagKeys = fc.constantFrom('account', 'resource', 'b', 'a');
    const point = fc.record({
      measurement: fc.oneof(
        { weight: 9, arbitrary: fc.constantFrom(...measurements) },
        { weight: 1, arbitrary: hostile },
      ),
      tags: fc.oneof(fc.dictionary(tagKeys, hostile, { maxKeys: 4 }), fc.dictionary(hostile, hostile, { maxKeys: 3 })),
      fields: fc.oneof(
        { weight: 9, arbitrary: fc.dictionary(fc.constantFrom(...fieldKeys), value, { maxKeys: 5 }) },
        { weight: 1, arbitrary: fc.dictionary(hostile, value, { maxKeys: 2 }) },
      ),
      time: fc.oneof(
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.double(),
        fc.constantFrom(0, -0, -1, 0.5, -1500, 1e300, Number.NaN),
      ),
    }) as fc.Arbitrary<Point>;
    return fc.record({
      schema: fc.constant(schema),
      precision: fc.constant(precision),
      backslashes: fc.constant(backslashes),
      points: fc.array(point, { minLength: 1, maxLength: 12 }),
    });
  });

type Outcome = { line: string | undefined } | { error: string };

function outcome(encode: () => string | undefined): Outcome {
  try {
    return { line: encode() };
  } catch (err) {
    return { error: `${(err as Error).constructor.name}: ${(err as Error).message}` };
  }
}

describe('byte encoder ≡ the string encoder it replaced', () => {
  it('same line or same error for random hostile points, as text and as a batch line', () => {
    withoutStacks(() =>
      fc.assert(
        fc.property(cases, ({ schema, precision, backslashes, points }) => {
          const reference = createReferenceEncoder(precision, { schema, backslashes });
          const encoder = lineEncoder(precision, { schema, backslashes });
          const scratch = new GrowingBytes();
          const batch = new LineBatch<number>();
          // Outcomes are gathered point by point (the encoders' caches see them in sequence) and compared at the end.
          const expected: Outcome[] = [];
          const asText: Outcome[] = [];
          const inBatch: Outcome[] = [];
          for (const point of points) {
            expected.push(outcome(() => reference(point)));
            asText.push(
              outcome(() => {
                const end = encoder.encodeInto(point, scratch, 0);
                return end < 0 ? undefined : scratch.bytes.toString('utf8', 0, end);
              }),
            );
            const before = batch.count;
            inBatch.push(outcome(() => (batch.appendPoint(point, encoder, 0) ? batch.line(before) : undefined)));
          }
          expect(asText).toEqual(expected);
          expect(inBatch).toEqual(expected);
          const lines = points
            .map((p) => outcome(() => reference(p)))
            .flatMap((o) => ('line' in o && o.line ? [o.line] : []));
          expect(batch.lines()).toEqual(lines);
        }),
        { numRuns: 3000 },
      ),
    );
  });

  it('numbers are written as String() prints them', () => {
    const writer = new ByteWriter();
    const target = new GrowingBytes();
    const printed = (write: (n: number) => void, n: number) => {
      writer.begin(target, 0);
      write(n);
      return target.bytes.toString('latin1', 0, writer.pos);
    };
    // 2,000 runs of 25 numbers: 50,000 numbers, one comparison of each list per run.
    fc.assert(
      fc.property(fc.array(number, { minLength: 25, maxLength: 25 }), (drawn) => {
        const finite = drawn.filter((n) => Number.isFinite(n));
        expect(finite.map((n) => printed((x) => writer.float(x), n))).toEqual(finite.map(String));
        const integers = finite.filter((n) => Number.isInteger(n));
        expect(integers.map((n) => printed((x) => writer.integer(x), n))).toEqual(integers.map(String));
      }),
      { numRuns: 2_000 },
    );
  });
});
