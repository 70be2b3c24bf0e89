/**
 * `sink.type: victoriametrics`: a real VictoriaMetrics without dummy org, bucket or token — the config, the write,
 * the `--check --online` probe naming what it checked, the retention read from /flags, and the verify reader.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSink } from '../../src/cli/common/sink-probe.js';
import { parseConfig } from '../../src/config/loader.js';
import { createSink } from '../../src/sink/index.js';
import { readRetention, victoriaPeriodMs } from '../../src/sink/retention.js';
import { readerKindOf } from '../../src/verify/readers/kind.js';
import type { Point } from '../../src/points.js';
import {
  serverSkipReason,
  startVictoriaMetrics,
  VICTORIA_BIN,
  type VictoriaMetricsServer,
} from '../helpers/servers.js';
import { testSchema } from './schema.js';

const DAY = 86_400_000;

describe('a VictoriaMetrics period', () => {
  it('is months when bare, minutes with m, and h, d, w, y as written', () => {
    expect(victoriaPeriodMs('1')).toBe(31 * DAY);
    expect(victoriaPeriodMs('30d')).toBe(30 * DAY);
    expect(victoriaPeriodMs('2w')).toBe(14 * DAY);
    expect(victoriaPeriodMs('100y')).toBe(36_500 * DAY);
    expect(victoriaPeriodMs('90m')).toBe(90 * 60_000);
    expect(victoriaPeriodMs('soon')).toBeUndefined();
  });
});

describe.skipIf(serverSkipReason(VICTORIA_BIN) !== undefined)(
  'sink.type victoriametrics against VictoriaMetrics',
  () => {
    let server: VictoriaMetricsServer;
    let dir: string;

    beforeAll(async () => {
      server = await startVictoriaMetrics(['-retentionPeriod=45d']);
      dir = await mkdtemp(join(tmpdir(), 'sink-vm-type-'));
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    const config = () =>
      parseConfig(
        {
          api: { baseUrl: 'http://127.0.0.1:1', token: 'vm-type-token' },
          accounts: ['acme'],
          sink: { type: 'victoriametrics', url: server.url },
          state: { dir: join(dir, 'state') },
        },
        {},
      );

    it('needs no org, bucket or token; keeps every sample (overwrites false); verify reads it back', () => {
      const c = config();
      expect(c.sink).toMatchObject({ type: 'victoriametrics', url: server.url });
      expect(c.output.overwrites).toBe(false);
      expect(readerKindOf(c)).toBe('victoriametrics');
    });

    it('writes points, backslashes escaped', async () => {
      const sink = createSink({
        ...config().sink,
        deadLetterPath: join(dir, 'dead.jsonl'),
        schema: testSchema({ traffic: { bytes: 'integer' } }),
      });
      const time = Date.UTC(2026, 10, 1);
      const point: Point = { measurement: 'traffic', tags: { host: 'a\\b' }, fields: { bytes: 42 }, time };
      expect(await sink.write([point])).toMatchObject({ written: 1, rejected: 0 });
      await sink.close();
      const series = await server.export('{__name__="traffic_bytes"}');
      expect(series.map((s) => [s.metric.host, s.values])).toEqual([['a\\b', [42]]]);
    });

    it('the online check says what it checked, not "bucket … is writable"', async () => {
      const verdict = await probeSink(config().sink);
      expect(verdict.ok).toBe(true);
      expect(verdict.detail).toMatch(/^VictoriaMetrics at http:\/\/127\.0\.0\.1:\d+: \/api\/v2\/write: .*empty write/);
    });

    it("a backfill's retention is VictoriaMetrics' -retentionPeriod, read from /flags", async () => {
      expect(await readRetention(config().sink)).toEqual({
        target: 'VictoriaMetrics -retentionPeriod (45d)',
        durationMs: 45 * DAY,
      });
    });
  },
);
