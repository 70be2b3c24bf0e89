import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_TAG, type Point } from '../../src/points.js';
import { createSink, type Sink } from '../../src/sink/index.js';
import {
  serverSkipReason,
  startVictoriaMetrics,
  VICTORIA_BIN,
  type VictoriaMetricsServer,
} from '../helpers/servers.js';
import { HOSTILE_TAG_VALUES, testSchema } from './schema.js';

const T0 = Date.UTC(2022, 2, 1, 6, 0);
const MINUTE = 60_000;
const schema = testSchema({ traffic: { bytes: 'integer', ratio: 'float' } });

describe.skipIf(serverSkipReason(VICTORIA_BIN) !== undefined)(
  'InfluxDB v2 sink against VictoriaMetrics /api/v2/write',
  () => {
    let server: VictoriaMetricsServer;
    let dir: string;
    let sink: Sink;

    beforeAll(async () => {
      server = await startVictoriaMetrics();
      dir = await mkdtemp(join(tmpdir(), 'sink-vm-'));
      sink = createSink({
        type: 'influx-v2',
        url: server.url,
        token: 'unused-by-vm',
        org: 'org',
        bucket: 'bucket',
        // VictoriaMetrics reads `\\` as one backslash, so a trailing backslash can be written exactly.
        backslashes: 'escaped',
        deadLetterPath: join(dir, 'dead.jsonl'),
        schema,
        batchSize: 7,
      });
    });
    afterAll(async () => {
      await sink?.close();
      await server?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('points land with exact values, timestamps and hostile tags (gzip on, several batches)', async () => {
      const values = [...HOSTILE_TAG_VALUES, 'trailing\\', ''];
      const points: Point[] = values.flatMap((resource, i) =>
        [0, 1].map((minute) => ({
          measurement: 'traffic',
          tags: { resource, zone: 'eu-1' },
          fields: { bytes: 1_000_000_007 * (i + 1) + minute, ratio: i / 8 + 0.001 },
          time: T0 + minute * MINUTE,
        })),
      );
      expect(await sink.write(points)).toEqual({ written: points.length, rejected: 0 });

      const bytes = await server.export('{__name__="traffic_bytes"}');
      const byResource = new Map(bytes.map((s) => [s.metric.resource, s]));
      expect([...byResource.keys()].sort()).toEqual(values.map((v) => (v === '' ? EMPTY_TAG : v)).sort());
      values.forEach((value, i) => {
        const series = byResource.get(value === '' ? EMPTY_TAG : value)!;
        expect(series.metric).toEqual({
          __name__: 'traffic_bytes',
          resource: value === '' ? EMPTY_TAG : value,
          zone: 'eu-1',
        });
        expect(series.timestamps).toEqual([T0, T0 + MINUTE]);
        expect(series.values).toEqual([1_000_000_007 * (i + 1), 1_000_000_007 * (i + 1) + 1]);
      });
      const ratios = await server.export('{__name__="traffic_ratio", resource="video cdn"}');
      expect(ratios).toHaveLength(1);
      expect(ratios[0]!.values).toEqual([0.001, 0.001]);
    });
  },
);
