/**
 * The sink encodes each batch into one byte buffer (LineBatch) instead of joining line strings: the bytes on the wire
 * must stay exactly what the string encoder joined by `\n` gives, for the real schema's points and for hostile names.
 */
import { describe, expect, it } from 'vitest';
import { writeCalls } from '../../bench/lib/points.js';
import type { Point } from '../../src/points.js';
import { BatchingSink, type LineTransport } from '../../src/sink/batching.js';
import type { DeadLetterFile } from '../../src/sink/dead-letter.js';
import { LineBatch } from '../../src/sink/line-batch.js';
import { createEncoder } from '../../src/sink/line-protocol.js';
import { SCHEMA } from '../../src/schema/schema.js';
import type { BackslashDialect } from '../../src/sink/types.js';
import { HOSTILE_TAG_VALUES, testSchema } from './schema.js';

const T0 = Date.UTC(2024, 0, 1);

/** A transport that keeps every body it is sent, as bytes. */
function capture(): LineTransport & { bodies: Buffer[] } {
  const bodies: Buffer[] = [];
  return {
    bodies,
    send: async (body) => {
      bodies.push(Buffer.from(body)); // a copy: the sink's buffer is only valid until send settles
      return undefined;
    },
    close: async () => {},
  };
}

const noDeadLetters = { path: '-', append: async () => {} } as unknown as DeadLetterFile;

/** What the old sink sent: the string encoder's lines, `batchSize` per body, joined by `\n`. */
function joinedBodies(points: Point[], encode: (p: Point) => string | undefined, batchSize: number): Buffer[] {
  const lines = points.map(encode).filter((l): l is string => l !== undefined);
  const bodies: Buffer[] = [];
  for (let i = 0; i < lines.length; i += batchSize) bodies.push(Buffer.from(lines.slice(i, i + batchSize).join('\n')));
  return bodies;
}

async function sinkBodies(
  points: Point[],
  options: ConstructorParameters<typeof BatchingSink>[3],
  batchSize: number,
): Promise<Buffer[]> {
  const transport = capture();
  const sink = new BatchingSink('test', transport, noDeadLetters, { ...options, batchSize, maxInFlight: 1 });
  await sink.write(points);
  await sink.close();
  return transport.bodies;
}

describe('bytes on the wire', () => {
  for (const backslashes of ['escaped', 'verbatim'] as BackslashDialect[]) {
    it(`real schema points (bench/lib/points.ts) are byte-identical to joined lines (${backslashes})`, async () => {
      const points = [...writeCalls(10_000)].flat();
      // The mix covers every measurement of the bench: metrics (66 fields), traffic by grouping, views.
      expect(new Set(points.map((p) => p.measurement)).size).toBeGreaterThanOrEqual(6);
      const expected = joinedBodies(points, createEncoder('s', { schema: SCHEMA, backslashes }), 997);
      const actual = await sinkBodies(points, { precision: 's', schema: SCHEMA, backslashes }, 997);
      expect(actual.length).toBe(expected.length);
      for (let i = 0; i < expected.length; i++) expect(actual[i]!.equals(expected[i]!)).toBe(true);
    });
  }

  it('hostile names, non-ASCII (incl. 4-byte UTF-8) and every field type are byte-identical', async () => {
    const schema = testSchema({ 'm e,a=s': { 'i n,t': 'integer', 'f=l': 'float', b: 'boolean', s: 'string' } });
    const values = [...HOSTILE_TAG_VALUES, 'emoji 🎥📺', 'x'.repeat(3000)];
    const points: Point[] = values.map((value, i) => ({
      measurement: 'm e,a=s',
      tags: { 'k e=y': value, 'z,z': `v${i}` },
      fields: { 'i n,t': i - 5, 'f=l': i / 3, b: i % 2 === 0, s: `say "${value}" \\ ${i}` },
      time: T0 + i * 1000,
    }));
    for (const backslashes of ['escaped', 'verbatim'] as BackslashDialect[]) {
      const encode = createEncoder('ns', { schema, backslashes });
      const safe = points.filter((p) => {
        try {
          return encode(p) !== undefined;
        } catch {
          return false; // e.g. a trailing backslash in verbatim: dead-lettered either way
        }
      });
      expect(safe.length).toBeGreaterThan(values.length - 3);
      const expected = joinedBodies(safe, encode, 4);
      const actual = await sinkBodies(safe, { precision: 'ns', backslashes, schema }, 4);
      expect(actual.map((b) => b.toString('hex'))).toEqual(expected.map((b) => b.toString('hex')));
    }
  });
});

describe('LineBatch', () => {
  it('grows past its first buffer and gives lines and bodies back exactly', () => {
    const batch = new LineBatch<number>();
    const lines = Array.from({ length: 50 }, (_, i) => `m,t=Видео${i} v=${i}i ${'y'.repeat(i * 500)}`);
    lines.forEach((line, i) => batch.append(line, 'm', i));
    expect(batch.count).toBe(50);
    expect(batch.body().toString()).toBe(lines.join('\n'));
    expect(batch.body(10, 13).toString()).toBe(lines.slice(10, 13).join('\n'));
    expect(batch.lines(48, 50)).toEqual(lines.slice(48));
    expect(batch.byteLength).toBe(Buffer.byteLength(lines.join('\n')) + 1);
  });

  it('retain drops the lines of failed owners and keeps the rest in order', () => {
    const batch = new LineBatch<string>();
    const owners = ['a', 'b', 'a', 'c', 'b', 'a'];
    owners.forEach((owner, i) => batch.append(`line ${i} ünï`, `m${i}`, owner));
    expect(batch.retain((owner) => owner !== 'a')).toBe(3);
    expect(batch.count).toBe(3);
    expect(batch.body().toString()).toBe(['line 1 ünï', 'line 3 ünï', 'line 4 ünï'].join('\n'));
    expect([0, 1, 2].map((i) => [batch.owner(i), batch.measurement(i)])).toEqual([
      ['b', 'm1'],
      ['c', 'm3'],
      ['b', 'm4'],
    ]);
    batch.append('after', 'm9', 'd');
    expect(batch.lines()).toEqual(['line 1 ünï', 'line 3 ünï', 'line 4 ünï', 'after']);
  });
});
