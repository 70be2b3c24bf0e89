import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Point } from '../../src/points.js';
import { readRefused } from '../../src/sink/dead-letter.js';
import { createSink, type Sink } from '../../src/sink/index.js';
import { readRetention, retentionWarning } from '../../src/sink/retention.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { testSchema } from './schema.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * What InfluxDB 1.6.7 refuses for good — a field already stored with another type, points older than the retention
 * policy — comes back from the sink as refusals with a cause and a fix (not only a dead-letter count), and the
 * target's retention can be read before a backfill.
 */
describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)('refusals of a real InfluxDB 1.6.7', () => {
  let server: InfluxV1Server;
  let dir: string;
  const sinks: Sink[] = [];
  const refusedByCause: Record<string, number> = {};
  const schema = testSchema({ m: { hits: 'integer' } });

  beforeAll(async () => {
    server = await startInfluxV1();
    dir = await mkdtemp(join(tmpdir(), 'refusals-v1-'));
    await server.query('CREATE DATABASE typed');
    await server.query('CREATE DATABASE short');
    await server.query('CREATE RETENTION POLICY "hour" ON "short" DURATION 1h REPLICATION 1 DEFAULT');
  });
  afterAll(async () => {
    await Promise.all(sinks.map((s) => s.close()));
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function sink(database: string): Sink {
    const observer = {
      pointsWritten() {},
      deadLetters() {},
      pointsRefused: (cause: string, n: number) => (refusedByCause[cause] = (refusedByCause[cause] ?? 0) + n),
    };
    const created = createSink({
      type: 'influx-v1',
      url: server.url,
      database,
      deadLetterPath: join(dir, 'dead.jsonl'),
      schema,
      telemetry: observer,
    });
    sinks.push(created);
    return created;
  }
  const point = (time: number, hits = 1): Point => ({ measurement: 'm', tags: { a: 'x' }, fields: { hits }, time });

  it('a field another tool wrote as a string: field-type-conflict, naming the field, both types, the fix', async () => {
    const now = Date.now();
    const res = await request(`${server.url}/write?db=typed&precision=ms`, {
      method: 'POST',
      body: `m,a=other hits="many" ${now}`,
    });
    expect(res.statusCode).toBe(204);
    await res.body.dump();
    const result = await sink('typed').write([point(now - MINUTE), point(now - 2 * MINUTE)]);
    expect(result).toMatchObject({ written: 0, rejected: 2 });
    expect(result.refusals).toHaveLength(1);
    const [refusal] = result.refusals!;
    expect(refusal).toMatchObject({ cause: 'field-type-conflict', points: 2, measurements: ['m'] });
    expect(refusal!.reason).toContain('field type conflict');
    expect(refusal!.fix).toMatch(/^m\.hits is stored as string .* the collector writes integer/);
    expect(refusedByCause['field-type-conflict']).toBe(2);
  });

  it('points older than a 1 h retention policy: refused as beyond-retention, the newer ones written', async () => {
    const now = Date.now();
    const result = await sink('short').write([point(now - 4 * HOUR), point(now - 3 * HOUR), point(now - 5 * MINUTE)]);
    expect(result).toMatchObject({ written: 1, rejected: 2 });
    expect(result.refusals).toEqual([expect.objectContaining({ cause: 'beyond-retention', points: 2 })]);
    expect(result.refusals![0]!.fix).toContain('ALTER RETENTION POLICY');
    expect(await server.query('SELECT count(hits) FROM m', 'short')).toEqual([expect.objectContaining({ count: 1 })]);
  });

  it('the dead-letter file sums the refusals by cause (what `status` lists)', async () => {
    const summary = await readRefused(join(dir, 'dead.jsonl'));
    expect(summary.map((s) => [s.cause, s.points])).toEqual([
      ['field-type-conflict', 2],
      ['beyond-retention', 2],
    ]);
  });

  it('reads the retention of the database default policy, or the configured one; autogen keeps forever', async () => {
    const short = await readRetention({ type: 'influx-v1', url: server.url, database: 'short' });
    expect(short).toEqual({ target: 'retention policy "hour" of database "short"', durationMs: HOUR });
    const named = await readRetention({
      type: 'influx-v1',
      url: server.url,
      database: 'short',
      retentionPolicy: 'autogen',
    });
    expect(named).toEqual({ target: 'retention policy "autogen" of database "short"', durationMs: undefined });
    await expect(readRetention({ type: 'influx-v1', url: server.url, database: 'absent' })).rejects.toThrow(
      /database not found: absent/,
    );
    const now = Date.now();
    expect(retentionWarning(short, now - 4 * HOUR, now)).toMatch(
      /starts before what the retention policy "hour" of database "short" keeps \(1 h\)/,
    );
    expect(retentionWarning(short, now - 30 * MINUTE, now)).toBeUndefined();
    expect(retentionWarning(named, now - 400 * HOUR, now)).toBeUndefined();
  });
});
