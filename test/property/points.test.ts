import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import type { Point } from '../../src/points.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { createEncoder, InvalidValueError, UnrepresentableError } from '../../src/sink/index.js';
import { dvrToPoints } from '../../src/sources/dvr/points.js';
import { dvrGetResponseSchema } from '../../src/sources/dvr/schemas.js';
import { aggregateToPoints, byResourceToPoints } from '../../src/sources/metrics/points.js';
import { metricsAggregateSchema, metricsByResourceSchema } from '../../src/sources/metrics/schema.js';
import * as statistic from '../../src/sources/statistic/points.js';
import {
  statisticGroupedSchema,
  statisticTimesGroupedSchema,
  statisticTimesSchema,
  statisticTotalSchema,
} from '../../src/sources/statistic/schemas.js';
import * as streamstat from '../../src/sources/streamstat/points.js';
import {
  streamstatGroupedSchema,
  streamstatTimesGroupedSchema,
  streamstatTimesSchema,
  streamstatTotalSchema,
} from '../../src/sources/streamstat/schemas.js';
import * as arb from './arbitraries.js';

const WINDOW = Date.UTC(2026, 0, 1);
const encoders = [
  createEncoder('s', { schema: SCHEMA, backslashes: 'verbatim' }),
  createEncoder('s', { schema: SCHEMA, backslashes: 'escaped' }),
  createEncoder('ms', { schema: SCHEMA }),
];

/**
 * Every point made from a schema-valid body encodes, or is refused as unrepresentable or as no measurement (a negative
 * count, an integer beyond int64: the dead-letter path) — never
 * with an EncodeError, which would mean the source produced a point outside the measurement schema and fail the write.
 */
function assertEncodable(points: Point[]): void {
  for (const point of points) {
    for (const encode of encoders) {
      try {
        encode(point);
      } catch (err) {
        if (!(err instanceof UnrepresentableError || err instanceof InvalidValueError)) throw err;
      }
    }
  }
}

/** A property over bodies the schema accepts (fast-check discards the rest), mapped by `toPoints`. */
function encodes<T>(body: fc.Arbitrary<unknown>, schema: ZodType<T>, toPoints: (parsed: T) => Point[]) {
  return fc.property(body, (raw) => {
    const parsed = schema.safeParse(raw);
    fc.pre(parsed.success);
    assertEncodable(toPoints(parsed.data as T));
  });
}

const runs = { numRuns: 150 };

describe('points from any schema-valid body encode as line protocol', () => {
  it('metrics aggregate and by resource', () => {
    fc.assert(
      encodes(arb.metricsAggregate, metricsAggregateSchema, (b) => aggregateToPoints(b, WINDOW)),
      runs,
    );
    fc.assert(
      encodes(arb.metricsByResource, metricsByResourceSchema, (b) => byResourceToPoints(b, WINDOW)),
      runs,
    );
  });

  it('statistic total, groupings and /times', () => {
    fc.assert(encodes(arb.statisticTotal, statisticTotalSchema, statistic.totalToPoints), runs);
    fc.assert(encodes(arb.statisticTimes, statisticTimesSchema, statistic.timesToPoints), runs);
    fc.assert(
      fc.property(
        arb.statisticGrouping,
        arb.statisticGrouped,
        arb.statisticTimesGrouped,
        (grouping, grouped, times) => {
          const a = statisticGroupedSchema.safeParse(grouped);
          const b = statisticTimesGroupedSchema.safeParse(times);
          if (a.success) assertEncodable(statistic.groupedToPoints(grouping, a.data));
          if (b.success) assertEncodable(statistic.timesGroupedToPoints(grouping, b.data));
        },
      ),
      runs,
    );
  });

  it('stream views total, groupings and buckets', () => {
    fc.assert(
      encodes(arb.streamstatTotal, streamstatTotalSchema, (b) => streamstat.totalToPoints(b)),
      runs,
    );
    fc.assert(
      encodes(arb.streamstatTimes, streamstatTimesSchema, (b) => streamstat.timesToPoints(b)),
      runs,
    );
    fc.assert(
      fc.property(
        arb.streamstatGrouping,
        arb.streamstatGrouped,
        arb.streamstatTimesGrouped,
        (grouping, grouped, times) => {
          const a = streamstatGroupedSchema(grouping).safeParse(grouped);
          const b = streamstatTimesGroupedSchema(grouping).safeParse(times);
          if (a.success) assertEncodable(streamstat.groupedToPoints(grouping, a.data));
          if (b.success) assertEncodable(streamstat.timesGroupedToPoints(grouping, b.data));
        },
      ),
      runs,
    );
  });

  it('DVR snapshots and ranges', () => {
    fc.assert(
      encodes(arb.dvrGet, dvrGetResponseSchema, (b) => dvrToPoints('acme', b, WINDOW)),
      runs,
    );
  });

  it('found by these properties: a fractional count and a time toMs cannot read are refused by the schemas', () => {
    const metrics = { start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:10:00Z', account: 'a', metrics: [] };
    expect(metricsAggregateSchema.safeParse({ ...metrics, data: [{ origin_status_505: -5e-324 }] }).success).toBe(
      false,
    );
    expect(
      metricsAggregateSchema.safeParse({ ...metrics, data: [{ edge_hit_ratio: 0.5, edge_requests_total: 3 }] }).success,
    ).toBe(true);
    const total = { start: 'Thu, 01 Jan 2026 00:00:00 GMT', end: '2026-01-01T01:00:00Z', account: null, bandwidth: 0 };
    expect(statisticTotalSchema.safeParse(total).success).toBe(false);
    expect(statisticTotalSchema.safeParse({ ...total, start: '2026-01-01T00:00:00' }).success).toBe(true);
  });

  it('the generators reach the interesting cases (not a vacuous property)', () => {
    const sample = fc.sample(arb.metricsByResource, 300).filter((b) => metricsByResourceSchema.safeParse(b).success);
    expect(sample.length).toBeGreaterThan(100);
    expect(sample.some((b) => b.data.some((e) => e.resource_name.endsWith('\\')))).toBe(true);
  });
});
