/**
 * The sink reuses its batches' byte buffers while busy, but must not hold them for good: a buffer grown past a size is
 * not kept, and an idle sink (nothing queued, nothing on the wire) lets go of every one.
 */
import { describe, expect, it } from 'vitest';
import type { Point } from '../../src/points.js';
import { BatchingSink, type LineTransport } from '../../src/sink/batching.js';
import type { DeadLetterFile } from '../../src/sink/dead-letter.js';
import { BufferPool, LineBatch } from '../../src/sink/line-batch.js';
import { testSchema } from './schema.js';

const schema = testSchema({ m: { v: 'integer', s: 'string' } });
const noDeadLetters = { path: '-', append: async () => {} } as unknown as DeadLetterFile;
const points = (n: number, text = 'x'): Point[] =>
  Array.from({ length: n }, (_, i) => ({ measurement: 'm', tags: { k: `t${i}` }, fields: { v: i, s: text }, time: i }));

/**
 * A write resolves as its last request is confirmed; the request's own settling (buffer released, sink idle) follows
 * in the same turn's promise jobs, which are all done before the next macrotask: not a wait on time.
 */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('BufferPool', () => {
  it('keeps buffers up to its size limit only, and lets go of all on clear', () => {
    const pool = new BufferPool(4, 64 * 1024);
    pool.give(Buffer.alloc(16 * 1024));
    pool.give(Buffer.alloc(64 * 1024));
    pool.give(Buffer.alloc(64 * 1024 + 1));
    expect(pool.pooledBytes).toBe(80 * 1024);
    expect(pool.take().length).toBe(64 * 1024);
    pool.clear();
    expect(pool.pooledBytes).toBe(0);
  });

  it('a batch grown past the limit does not go back to the pool', () => {
    const pool = new BufferPool(4, 64 * 1024);
    const batch = new LineBatch<number>(pool);
    batch.append('y'.repeat(100_000), 'm', 0);
    batch.release();
    expect(pool.pooledBytes).toBe(0);
    const small = new LineBatch<number>(pool);
    small.append('short', 'm', 0);
    small.release();
    expect(pool.pooledBytes).toBeGreaterThan(0);
    expect(small.count).toBe(0); // released: empty, holding no buffer
  });
});

describe('LineBatch reuse', () => {
  it('a released batch starts empty and takes lines again (the sink reuses its per-line arrays)', () => {
    const pool = new BufferPool(2);
    const batch = new LineBatch<string>(pool);
    for (let i = 0; i < 5; i++) batch.append(`first ${i}`, 'm', 'a');
    batch.release();
    expect(batch.count).toBe(0);
    batch.append('second ü', 'n', 'b');
    batch.append('third', 'm', 'c');
    expect(batch.lines()).toEqual(['second ü', 'third']);
    expect([batch.owner(1), batch.measurement(0)]).toEqual(['c', 'n']);
    expect(batch.retain((owner) => owner === 'c')).toBe(1);
    expect(batch.body().toString()).toBe('third');
  });
});

describe('BatchingSink buffers', () => {
  it('reuses buffers while busy and holds none once idle', async () => {
    const pooledWhileSending: number[] = [];
    let sink: BatchingSink | undefined;
    const transport: LineTransport = {
      send: async () => {
        pooledWhileSending.push(sink!.pooledBytes);
        return undefined;
      },
      close: async () => {},
    };
    sink = new BatchingSink('test', transport, noDeadLetters, { schema, batchSize: 10, maxInFlight: 1 });
    const result = await sink.write(points(95, 'z'.repeat(200)));
    expect(result.written).toBe(95);
    expect(pooledWhileSending.length).toBe(10);
    expect(Math.max(...pooledWhileSending)).toBeGreaterThan(0);
    await settled();
    expect(sink.pooledBytes).toBe(0);
    // And again after a second burst: idle again, nothing kept.
    await sink.write(points(30));
    await settled();
    expect(sink.pooledBytes).toBe(0);
    await sink.close();
  });
});
