import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '../../src/schema/schema.js';
import { createEncoder } from '../../src/sink/line-protocol.js';
import { DVR_MEASUREMENT, DVR_RANGE_MEASUREMENT } from '../../src/sources/dvr/measurements.js';
import { dvrToPoints } from '../../src/sources/dvr/points.js';
import type { DvrGetResponse } from '../../src/sources/dvr/schemas.js';
import { startDvrFixture, T0, T0_MS, type DvrFixture } from './helpers.js';

let f: DvrFixture;
let body: DvrGetResponse;
beforeAll(async () => {
  f = await startDvrFixture();
  body = await f.dvr.get('acme', 'live/main');
});
afterAll(() => f.close());

describe('dvrToPoints', () => {
  it('writes one cdn_dvr snapshot per node at the snapshot time', () => {
    const snapshots = dvrToPoints('acme', body, T0_MS).filter((p) => p.measurement === DVR_MEASUREMENT);
    expect(snapshots.map((p) => p.tags)).toEqual(
      f.sim.world.nodes.map((host) => ({ account: 'acme', stream: 'live/main', host })),
    );
    for (const [i, p] of snapshots.entries()) {
      const { dvr, is_alive } = body.data[i]!;
      expect(p.time).toBe(T0_MS);
      const expected: Record<string, unknown> = {
        is_alive,
        enabled: dvr.enabled,
        window: dvr.window,
        recorded_seconds: dvr.duration,
        ranges: dvr.ranges.length,
      };
      if (dvr.ranges.length > 0) expected.first_recorded_at = dvr.from;
      expect(p.fields).toEqual(expected);
    }
  });

  it('leaves `first_recorded_at` out for a node that recorded nothing (DVR disabled)', () => {
    const disabled = dvrToPoints('acme', body, T0_MS).find(
      (p) => p.measurement === DVR_MEASUREMENT && p.tags.host === 'node-02',
    );
    expect(disabled?.fields).toMatchObject({ enabled: false, ranges: 0, recorded_seconds: 0 });
    expect(disabled?.fields).not.toHaveProperty('first_recorded_at');
  });

  it('writes one cdn_dvr_range per range, first seen: stamped with its start, so a replay yields the same keys', () => {
    const ranges = dvrToPoints('acme', body, T0_MS).filter((p) => p.measurement === DVR_RANGE_MEASUREMENT);
    const expected = body.data.flatMap((r) =>
      r.dvr.ranges.map((range) => ({
        measurement: DVR_RANGE_MEASUREMENT,
        tags: { account: 'acme', stream: 'live/main', host: r.host },
        fields: {
          starts_at: range.from,
          ends_at: range.from + range.duration,
          length_seconds: range.duration,
          seen_at: T0,
        },
        time: range.from * 1000,
      })),
    );
    expect(ranges).toEqual(expected);
    const replay = dvrToPoints('acme', body, T0_MS).filter((p) => p.measurement === DVR_RANGE_MEASUREMENT);
    expect(replay).toEqual(ranges);
  });

  it('rounds fractional durations (the spec types them as number) into the integer fields', () => {
    const record = body.data[0]!;
    const fractional: DvrGetResponse = {
      ...body,
      data: [
        { ...record, dvr: { ...record.dvr, duration: 10.4, window: 14400.0, ranges: [{ from: 100, duration: 9.6 }] } },
      ],
    };
    const [snapshot, range] = dvrToPoints('acme', fractional, T0_MS);
    expect(snapshot?.fields).toMatchObject({ recorded_seconds: 10, window: 14400 });
    expect(range?.fields).toEqual({ starts_at: 100, ends_at: 110, length_seconds: 10, seen_at: T0 });
  });

  it('every point encodes with the schema types (integers as integers, booleans as booleans)', () => {
    expect(SCHEMA.get(DVR_MEASUREMENT)?.fields.is_alive?.type).toBe('boolean');
    const encode = createEncoder('s', { schema: SCHEMA });
    const lines = dvrToPoints('acme', body, T0_MS).map((p) => encode(p));
    expect(lines.every((l) => typeof l === 'string')).toBe(true);
    expect(lines[0]).toMatch(/^cdn_dvr,account=acme,host=node-01,stream=live\/main .*window=14400i/);
    expect(lines[0]).toMatch(/is_alive=true/);
  });
});
