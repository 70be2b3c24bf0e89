import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_TAG, type Point } from '../../src/points.js';
import type { DeadLetter } from '../../src/sink/dead-letter.js';
import { SinkError } from '../../src/sink/errors.js';
import { createSink, type Sink } from '../../src/sink/index.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { HOSTILE_TAG_VALUES, testSchema } from './schema.js';

const T0 = Date.UTC(2023, 5, 1, 0, 0);
const MINUTE = 60_000;

describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)('InfluxDB 1.x sink against a real influxd', () => {
  let server: InfluxV1Server;
  let dir: string;
  const sinks: Sink[] = [];

  beforeAll(async () => {
    server = await startInfluxV1();
    dir = await mkdtemp(join(tmpdir(), 'sink-v1-'));
    await server.query('CREATE DATABASE db');
  });
  afterAll(async () => {
    await Promise.all(sinks.map((s) => s.close()));
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function sink(schema: Parameters<typeof testSchema>[0], batchSize?: number): Sink {
    const created = createSink({
      type: 'influx-v1',
      url: server.url,
      database: 'db',
      deadLetterPath: join(dir, 'dead.jsonl'),
      schema: testSchema(schema),
      batchSize,
    });
    sinks.push(created);
    return created;
  }

  async function deadLetters(): Promise<DeadLetter[]> {
    const text = await readFile(join(dir, 'dead.jsonl'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as DeadLetter);
  }

  it('hostile tag values, names and EMPTY_TAG round-trip exactly', async () => {
    const values = [...HOSTILE_TAG_VALUES, ''];
    const points: Point[] = values.map((value, i) => ({
      measurement: 'web traffic,v2',
      tags: { 'res ource': value, 'k=ind': 'x' },
      fields: { 'hit count': i, 'ratio,avg': i + 0.5 },
      time: T0 + i * MINUTE,
    }));
    const s = sink({ 'web traffic,v2': { 'hit count': 'integer', 'ratio,avg': 'float' } });
    expect(await s.write(points)).toEqual({ written: values.length, rejected: 0 });

    const tagValues = await server.query('SHOW TAG VALUES FROM "web traffic,v2" WITH KEY = "res ource"', 'db');
    expect(tagValues.map((r) => r.value).sort()).toEqual([...HOSTILE_TAG_VALUES, EMPTY_TAG].sort());
    const rows = await server.query('SELECT * FROM "web traffic,v2" ORDER BY time', 'db');
    expect(rows).toEqual(
      values.map((value, i) => ({
        time: T0 + i * MINUTE,
        'res ource': value === '' ? EMPTY_TAG : value,
        'k=ind': 'x',
        'hit count': i,
        'ratio,avg': i + 0.5,
      })),
    );
  });

  it('a trailing backslash has no line-protocol form in 1.x: the point is dead-lettered, not altered', async () => {
    // The server refuses both the raw and the doubled form, so no encoding could round-trip it.
    for (const tag of ['t=a\\', 't=a\\\\']) {
      const res = await request(`${server.url}/write?db=db&precision=s`, {
        method: 'POST',
        body: `probe,${tag} v=1 60`,
      });
      expect(res.statusCode).toBe(400);
      await res.body.dump();
    }
    const s = sink({ slash: { v: 'integer' } });
    const result = await s.write([
      { measurement: 'slash', tags: { t: 'ends\\' }, fields: { v: 1 }, time: T0 },
      { measurement: 'slash', tags: { t: 'mid\\dle' }, fields: { v: 2 }, time: T0 },
    ]);
    expect(result).toEqual({ written: 1, rejected: 1 });
    expect(await server.query('SELECT * FROM slash', 'db')).toEqual([{ time: T0, t: 'mid\\dle', v: 2 }]);
    expect((await deadLetters()).some((l) => l.reason.includes('backslash') && l.lines[0]!.includes('ends'))).toBe(
      true,
    );
  });

  it('keeps the schema type: float 1 stays float, integer 1 stays integer', async () => {
    await sink({ as_float: { v: 'float' } }).write([{ measurement: 'as_float', tags: {}, fields: { v: 1 }, time: T0 }]);
    await sink({ as_int: { v: 'integer' } }).write([{ measurement: 'as_int', tags: {}, fields: { v: 1 }, time: T0 }]);
    const keys = await server.series('SHOW FIELD KEYS FROM as_float, as_int', 'db');
    expect(Object.fromEntries(keys.map((s) => [s.name, s.values]))).toEqual({
      as_float: [['v', 'float']],
      as_int: [['v', 'integer']],
    });
    // A float that happens to be whole must not flip the field: a later 2.5 is accepted.
    const again = await sink({ as_float: { v: 'float' } }).write([
      { measurement: 'as_float', tags: {}, fields: { v: 2.5 }, time: T0 + MINUTE },
    ]);
    expect(again).toEqual({ written: 1, rejected: 0 });
  });

  it('a field type conflict is counted rejected and dead-lettered; the rest of the batch lands; no throw', async () => {
    await sink({ conflict: { v: 'integer' } }).write([
      { measurement: 'conflict', tags: {}, fields: { v: 1 }, time: T0 },
    ]);
    const before = (await deadLetters()).length;
    const mixed = sink({ conflict: { v: 'float' }, fine: { v: 'float' } }, 100);
    const points: Point[] = [
      ...Array.from({ length: 5 }, (_, i) => ({
        measurement: 'fine',
        tags: {},
        fields: { v: i },
        time: T0 + i * MINUTE,
      })),
      { measurement: 'conflict', tags: {}, fields: { v: 2.5 }, time: T0 + MINUTE },
      ...Array.from({ length: 5 }, (_, i) => ({
        measurement: 'fine',
        tags: {},
        fields: { v: i },
        time: T0 + (i + 5) * MINUTE,
      })),
    ];
    expect(await mixed.write(points)).toEqual({
      written: 10,
      rejected: 1,
      refusals: [expect.objectContaining({ cause: 'field-type-conflict', points: 1, measurements: ['conflict'] })],
    });
    expect(await server.query('SELECT count(v) FROM fine', 'db')).toEqual([{ time: 0, count: 10 }]);
    const letters = (await deadLetters()).slice(before);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      sink: 'influx-v1',
      status: 400,
      lines: [`conflict v=2.5 ${(T0 + MINUTE) / 1000}`],
    });
    expect(letters[0]!.reason).toContain('field type conflict');
  });

  it('splits 50k points into batches of 1000: the server saw 50+ write requests, all points landed', async () => {
    const before = (await server.httpStats()).writeReq ?? 0;
    const s = sink({ bulk: { v: 'integer' } }, 1000);
    const points: Point[] = Array.from({ length: 50_000 }, (_, i) => ({
      measurement: 'bulk',
      tags: { shard: String(i % 10) },
      fields: { v: i },
      time: T0 + Math.floor(i / 10) * MINUTE,
    }));
    expect(await s.write(points)).toEqual({ written: 50_000, rejected: 0 });
    expect((await server.httpStats()).writeReq! - before).toBeGreaterThanOrEqual(50);
    expect(await server.query('SELECT count(v) FROM bulk', 'db')).toEqual([{ time: 0, count: 50_000 }]);
  });
});

describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)('InfluxDB 1.x sink when the server is gone', () => {
  it('rejects with a retryable SinkError and confirms nothing', async () => {
    const server = await startInfluxV1();
    await server.query('CREATE DATABASE db');
    const dir = await mkdtemp(join(tmpdir(), 'sink-v1-down-'));
    const s = createSink({
      type: 'influx-v1',
      url: server.url,
      database: 'db',
      deadLetterPath: join(dir, 'dead.jsonl'),
      schema: testSchema({ m: { v: 'integer' } }),
    });
    await s.write([{ measurement: 'm', tags: {}, fields: { v: 1 }, time: T0 }]);
    await server.stop();
    const outcome = await s.write([{ measurement: 'm', tags: {}, fields: { v: 2 }, time: T0 }]).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    expect('error' in outcome && outcome.error).toBeInstanceOf(SinkError);
    expect((outcome as { error: SinkError }).error).toMatchObject({
      retryable: true,
      status: undefined,
      sink: 'influx-v1',
    });
    expect(await readFile(join(dir, 'dead.jsonl'), 'utf8').catch(() => 'none')).toBe('none');
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });
});
