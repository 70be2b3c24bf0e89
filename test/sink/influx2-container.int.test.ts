/**
 * The v2 sink against the official `influxdb:2` image, where a Docker engine answers; skipped with the reason otherwise
 * (this machine has no Docker: the real-server coverage here is InfluxDB 1.6.7 and VictoriaMetrics).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InfluxDB } from '@influxdata/influxdb-client';
import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_TAG, type Point } from '../../src/points.js';
import type { DeadLetter } from '../../src/sink/dead-letter.js';
import { createSink, type Sink } from '../../src/sink/index.js';
import { dockerUnavailable, INFLUX2, startInflux2 } from '../helpers/docker.js';
import { HOSTILE_TAG_VALUES, testSchema } from './schema.js';

const { token: TOKEN, org: ORG, bucket: BUCKET } = INFLUX2;
const T0 = Date.UTC(2024, 0, 1);

const skipReason = await dockerUnavailable('influx2-container.int.test.ts');

describe.skipIf(skipReason !== undefined)('InfluxDB v2 sink against influxdb:2 (testcontainers)', () => {
  let container: StartedTestContainer;
  let url: string;
  let dir: string;
  let sink: Sink;

  beforeAll(async () => {
    ({ container, url } = await startInflux2());
    dir = await mkdtemp(join(tmpdir(), 'sink-influx2-'));
    sink = createSink({
      type: 'influx-v2',
      url,
      token: TOKEN,
      org: ORG,
      bucket: BUCKET,
      deadLetterPath: join(dir, 'dead.jsonl'),
      schema: testSchema({ traffic: { bytes: 'integer', ratio: 'float' }, conflict: { v: 'float' } }),
      batchSize: 5,
    });
  }, 180_000);
  afterAll(async () => {
    await sink?.close();
    await container?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function rows(flux: string): Promise<Record<string, unknown>[]> {
    return new InfluxDB({ url, token: TOKEN }).getQueryApi(ORG).collectRows(flux);
  }

  it('hostile tags, values and field types round-trip', async () => {
    const values = [...HOSTILE_TAG_VALUES, ''];
    const points: Point[] = values.map((resource, i) => ({
      measurement: 'traffic',
      tags: { resource },
      fields: { bytes: i, ratio: 1 },
      time: T0 + i * 60_000,
    }));
    expect(await sink.write(points)).toEqual({ written: values.length, rejected: 0 });
    const found = await rows(
      `from(bucket: "${BUCKET}") |> range(start: 0) |> filter(fn: (r) => r._measurement == "traffic")`,
    );
    const bytes = found.filter((r) => r._field === 'bytes');
    expect(bytes.map((r) => r.resource).sort()).toEqual(values.map((v) => (v === '' ? EMPTY_TAG : v)).sort());
    for (const row of bytes)
      expect(row._value).toBe(values.indexOf(row.resource === EMPTY_TAG ? '' : String(row.resource)));
    const types = await rows(`import "influxdata/influxdb/schema"
schema.fieldKeys(bucket: "${BUCKET}", predicate: (r) => r._measurement == "traffic", start: 0)`);
    expect(types.map((r) => r._value).sort()).toEqual(['bytes', 'ratio']);
    const ratio = found.find((r) => r._field === 'ratio');
    expect(typeof ratio?._value).toBe('number');
  });

  it('a field type conflict (422) is dead-lettered and counted, without a throw', async () => {
    const asInteger = createSink({
      type: 'influx-v2',
      url,
      token: TOKEN,
      org: ORG,
      bucket: BUCKET,
      deadLetterPath: join(dir, 'dead.jsonl'),
      schema: testSchema({ conflict: { v: 'integer' } }),
    });
    await asInteger.write([{ measurement: 'conflict', tags: {}, fields: { v: 1 }, time: T0 }]);
    await asInteger.close();
    const result = await sink.write([{ measurement: 'conflict', tags: {}, fields: { v: 1.5 }, time: T0 + 60_000 }]);
    expect(result).toEqual({ written: 0, rejected: 1 });
    const letters = (await readFile(join(dir, 'dead.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as DeadLetter);
    expect(letters.at(-1)).toMatchObject({ sink: 'influx-v2', lines: [`conflict v=1.5 ${(T0 + 60_000) / 1000}`] });
    expect([400, 422]).toContain(letters.at(-1)!.status);
  });
});
