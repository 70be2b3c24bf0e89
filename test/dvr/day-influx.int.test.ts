import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Point } from '../../src/points.js';
import { createSink, type Sink } from '../../src/sink/index.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { normalize, type SecondsInterval } from '../../src/spec/dvr.js';
import { dvrJobs } from '../../src/sources/dvr/jobs.js';
import { DVR_RANGE_MEASUREMENT, DVR_RANGES_NOW_QUERY } from '../../src/sources/dvr/measurements.js';
import type { DvrGetResponse } from '../../src/sources/dvr/schemas.js';
import { DvrRecordingStore } from '../../src/state/dvr-recordings.js';
import type { CollectJob } from '../../src/sources/common/types.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { startDvrFixture, T0_MS, type DvrFixture } from './helpers.js';

const INTERVAL_MS = 60_000;
const DAY_SNAPSHOTS = 24 * 60;
/** Halfway through the day the collector restarts: a new store reads the identities back from the state dir. */
const RESTART_AT = DAY_SNAPSHOTS / 2;

const seriesKey = (tags: Record<string, unknown>) => `${String(tags.stream)} ${String(tags.host)}`;

/**
 * A simulated day of DVR snapshots, one a minute, through the real job into a real InfluxDB 1.6.7. The simulator's
 * 4 h DVR window cuts the oldest recording at every snapshot (recordings began 1–6 h before), so each range's start
 * moves while its identity must not.
 */
describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)(
  'cdn_dvr_range over a day of snapshots (InfluxDB 1.6.7)',
  () => {
    let influx: InfluxV1Server;
    let f: DvrFixture;
    let dir: string;
    let sink: Sink;
    /** Every range listed during the day, per stream × node: the union's pieces are the recordings. */
    const everListed = new Map<string, SecondsInterval[]>();
    let lastBody = new Map<string, DvrGetResponse>();
    let lastSnapshotMs = 0;

    beforeAll(async () => {
      influx = await startInfluxV1();
      await influx.query('CREATE DATABASE dvr');
      f = await startDvrFixture();
      dir = await mkdtemp(join(tmpdir(), 'dvr-day-'));
      sink = createSink({
        type: 'influx-v1',
        url: influx.url,
        database: 'dvr',
        schema: SCHEMA,
        deadLetterPath: join(dir, 'dead.jsonl'),
      });
      const streams = f.sim.world.accounts[0]!.streams.filter((s) => s.dvr).map((s) => ({
        account: 'acme',
        stream: s.name,
      }));
      const jobsWith = (recordings: DvrRecordingStore): CollectJob[] =>
        dvrJobs({ enabled: true, interval: INTERVAL_MS, streams, schedule: '* * * * *' }, { recordings });
      let jobs = jobsWith(new DvrRecordingStore({ dir }));
      for (let i = 0; i < DAY_SNAPSHOTS; i++) {
        if (i === RESTART_AT) jobs = jobsWith(new DvrRecordingStore({ dir }));
        lastSnapshotMs = T0_MS + i * INTERVAL_MS;
        f.clock.set(lastSnapshotMs + 5_000);
        const points: Point[] = [];
        lastBody = new Map();
        for (const job of jobs) {
          points.push(...(await job.collect({ from: lastSnapshotMs, to: lastSnapshotMs + INTERVAL_MS }, f.http)));
          const body = await f.dvr.get('acme', job.key.slice('dvr/acme/'.length));
          lastBody.set(body.stream_name, body);
          for (const record of body.data) {
            const key = `${body.stream_name} ${record.host}`;
            const listed = record.dvr.ranges.map((r) => ({ from: r.from, to: r.from + r.duration }));
            everListed.set(key, normalize([...(everListed.get(key) ?? []), ...listed]));
          }
        }
        expect(await sink.write(points)).toEqual({ written: points.length, rejected: 0 });
      }
    }, 600_000);
    afterAll(async () => {
      await sink?.close();
      await f?.close();
      await influx?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    async function rows(): Promise<Record<string, unknown>[]> {
      return influx.query(
        `SELECT starts_at, ends_at, length_seconds, seen_at FROM ${DVR_RANGE_MEASUREMENT} GROUP BY *`,
        'dvr',
      );
    }

    it('the window did cut recordings: a row starts later than its time (else the test proves nothing)', async () => {
      const cut = (await rows()).filter((r) => (r.starts_at as number) * 1000 > (r.time as number));
      expect(cut.length).toBeGreaterThan(0);
    });

    it('keeps exactly one row per recording: the pieces of everything ever listed, per stream and node', async () => {
      const bySeries = new Map<string, Record<string, unknown>[]>();
      for (const row of await rows()) bySeries.set(seriesKey(row), [...(bySeries.get(seriesKey(row)) ?? []), row]);
      const withRanges = [...everListed].filter(([, pieces]) => pieces.length > 0);
      expect([...bySeries.keys()].sort()).toEqual(withRanges.map(([key]) => key).sort());
      for (const [key, pieces] of withRanges) {
        const series = bySeries.get(key)!;
        expect(series, key).toHaveLength(pieces.length);
        // Each row lies in its own piece, and its time is the piece's first-seen start (never after its start now).
        const ordered = [...series].sort((a, b) => (a.time as number) - (b.time as number));
        ordered.forEach((row, i) => {
          expect(row.starts_at as number).toBeGreaterThanOrEqual(pieces[i]!.from);
          expect(row.ends_at as number).toBeLessThanOrEqual(pieces[i]!.to);
          expect(row.time as number).toBeLessThanOrEqual((row.starts_at as number) * 1000);
          expect(row.length_seconds).toBe((row.ends_at as number) - (row.starts_at as number));
        });
      }
    });

    it('the documented "recorded periods now" query returns exactly the last snapshot\'s ranges', async () => {
      const expected = [...lastBody.values()]
        .flatMap((body) =>
          body.data.flatMap((r) =>
            r.dvr.ranges.map((range) => `${body.stream_name} ${r.host} ${range.from}-${range.from + range.duration}`),
          ),
        )
        .sort();
      expect(expected.length).toBeGreaterThan(0);
      const lastSec = lastSnapshotMs / 1000;
      // Any dashboard end within the interval of the last snapshot names it.
      for (const toSec of [lastSec, lastSec + 30, lastSec + 59]) {
        const query = DVR_RANGES_NOW_QUERY.replace('${__to:date:seconds}', String(toSec));
        const now = (await influx.query(query, 'dvr'))
          .map((r) => `${seriesKey(r)} ${String(r.starts_at)}-${String(r.ends_at)}`)
          .sort();
        expect(now, `to = ${toSec}`).toEqual(expected);
      }
      const rowsOverall = (await rows()).length;
      expect(rowsOverall).toBeGreaterThan(expected.length); // stale recordings exist, and the query leaves them out
    });
  },
);
