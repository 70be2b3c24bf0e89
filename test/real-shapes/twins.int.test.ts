import { describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { HttpClient } from '../../src/http/client.js';
import { ResponseFormatError } from '../../src/http/errors.js';
import type { Point } from '../../src/points.js';
import { dvrToPoints } from '../../src/sources/dvr/points.js';
import { dvrGetResponseSchema } from '../../src/sources/dvr/schemas.js';
import { aggregateToPoints, byResourceToPoints } from '../../src/sources/metrics/points.js';
import { metricsAggregateSchema, metricsByResourceSchema } from '../../src/sources/metrics/schema.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import * as statistic from '../../src/sources/statistic/points.js';
import {
  statisticTimesGroupedSchema,
  statisticTimesSchema,
  statisticTotalSchema,
} from '../../src/sources/statistic/schemas.js';
import * as streamstat from '../../src/sources/streamstat/points.js';
import { streamstatTimesGroupedSchema, streamstatTimesSchema } from '../../src/sources/streamstat/schemas.js';
import { json, loopbackServer } from '../helpers/loopback.js';
import * as fixture from './fixtures.js';

interface Twins {
  seed: unknown;
  real: unknown;
}

/** Both twins parse, give at least one point, and give the same points. */
function samePoints<T>(twins: Twins, schema: ZodType<T>, toPoints: (body: T) => Point[]): Point[] {
  const seed = toPoints(schema.parse(twins.seed));
  const real = toPoints(schema.parse(twins.real));
  expect(seed.length).toBeGreaterThan(0);
  expect(real).toEqual(seed);
  return real;
}

describe('a real response shape gives the same points as its seed-shaped twin', () => {
  it('statistic total: "code": "200" echoed as text, times without a zone, an unknown key', () => {
    const [point] = samePoints(fixture.statisticTotal, statisticTotalSchema, statistic.totalToPoints);
    expect(point!.tags).toMatchObject({ code: '200', account: 'acme' });
    expect(point!.time).toBe(Date.UTC(2019, 7, 1, 11));
  });

  it('statistic /times/codes: row codes as text, limit and offset echoed as text, zone-less bucket bounds', () => {
    const points = samePoints(fixture.statisticTimesCodes, statisticTimesGroupedSchema, (b) =>
      statistic.timesGroupedToPoints('codes', b),
    );
    expect(points.map((p) => p.tags.code)).toEqual(['200', '404', '200', '404']);
  });

  it('statistic /times: counts and ratio as exact numeric strings', () => {
    const points = samePoints(fixture.statisticTimes, statisticTimesSchema, statistic.timesToPoints);
    expect(points[0]!.fields).toEqual({
      hits: 7,
      traffic: 700,
      cached_traffic: 350,
      cache_ratio: 0.5,
      bandwidth_peak: 10,
    });
  });

  it('streamstat grouped buckets: fields echoed as "views,users", limit as "1000", an unknown key', () => {
    samePoints(fixture.streamstatTimesStreams, streamstatTimesGroupedSchema('streams'), (b) =>
      streamstat.timesGroupedToPoints('streams', b, { account: 'acme' }),
    );
  });

  it('streamstat buckets: counts as digit strings, fields as text', () => {
    samePoints(fixture.streamstatTimes, streamstatTimesSchema, (b) => streamstat.timesToPoints(b, { account: 'acme' }));
  });

  it('metrics: a numeric status, counts and ratio as strings, an unknown metric and unknown keys', () => {
    const WINDOW = Date.UTC(2019, 7, 1, 11);
    const [point] = samePoints(fixture.metricsAggregate, metricsAggregateSchema, (b) => aggregateToPoints(b, WINDOW));
    expect(point!.fields).toEqual({ edge_requests_total: 50, edge_status_200: 48, edge_hit_ratio: 0.9 });
    samePoints(fixture.metricsByResource, metricsByResourceSchema, (b) => byResourceToPoints(b, WINDOW));
  });

  it('DVR: a numeric status, hex host ids kept verbatim, from as a digit string, unknown keys', () => {
    const points = samePoints(fixture.dvrGet, dvrGetResponseSchema, (b) => dvrToPoints('acme', b, 1_564_660_800_000));
    expect(new Set(points.map((p) => p.tags.host))).toEqual(new Set(['1e30a9c4d2b7', '5f3a9c0e11d8']));
  });
});

const codeRow = (code: unknown) => ({
  ...fixture.statisticTimesCodes.real,
  result: [{ start: '2019-08-01T11:00:00', end: '2019-08-01T11:30:00', result: [{ code, hits: 1 }] }],
});
const viewsBucket = (views: unknown) => ({
  ...fixture.streamstatTimes.real,
  result: [{ start: '2019-08-01T11:00:00', end: '2019-08-01T11:30:00', views }],
});

/** The real statistics total with `fields` changed. */
const totalWith = (fields: Record<string, unknown>) => ({ ...fixture.statisticTotal.real, ...fields });
const VIEWS_NOT_NUMBER = /^result\.0\.views: Expected number/;

describe('a value that becomes a point and does not fit is still an error naming the field', () => {
  const cases: Array<[string, ZodType<unknown>, unknown, RegExp]> = [
    ['a count that is a word', statisticTotalSchema, totalWith({ hits: 'lots' }), /^hits: Expected number/],
    [
      'a count with a fraction in text',
      statisticTotalSchema,
      totalWith({ traffic: '12.5' }),
      /^traffic: Expected number/,
    ],
    ['an empty count', statisticTotalSchema, totalWith({ bandwidth: '' }), /^bandwidth: Expected number/],
    [
      'a row code that is not a number',
      statisticTimesGroupedSchema,
      codeRow('2xx'),
      /^result\.0\.result\.0\.code: Expected number/,
    ],
    [
      'a bucket bound that is no time',
      statisticTimesGroupedSchema,
      { ...fixture.statisticTimesCodes.real, result: [{ start: 'x' }] },
      /^result\.0\.start: not an ISO 8601 time/,
    ],
    ['a time that is no time', statisticTotalSchema, totalWith({ start: 'yesterday' }), /^start: not an ISO 8601 time/],
    [
      'a ratio that is a word',
      statisticTotalSchema,
      totalWith({ cache_ratio: 'high' }),
      /^cache_ratio: Expected number/,
    ],
    [
      'a metric count with a fraction',
      metricsAggregateSchema,
      { ...fixture.metricsAggregate.real, data: [{ edge_status_200: '4.5' }] },
      /^data\.0\.edge_status_200: Expected number/,
    ],
    [
      'a streamstat count beyond 2^53 in text',
      streamstatTimesSchema,
      viewsBucket('90071992547409930'),
      VIEWS_NOT_NUMBER,
    ],
    ['a streamstat count with a sign and blank', streamstatTimesSchema, viewsBucket(' +5'), VIEWS_NOT_NUMBER],
    [
      'a DVR status that is not success',
      dvrGetResponseSchema,
      { ...fixture.dvrGet.real, status: 'Failed' },
      /^status: Expected status Completed/,
    ],
  ];
  it.each(cases)('%s', (_name, schema, body, message) => {
    const parsed = schema.safeParse(body);
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0]!;
    expect(`${issue.path.join('.')}: ${issue.message}`).toMatch(message);
  });

  it('"hits": "lots" through the client is a ResponseFormatError (kind schema) naming the field', async () => {
    const server = await loopbackServer((_req, res) => json(res, { ...fixture.statisticTotal.real, hits: 'lots' }));
    try {
      const client = new StatisticClient(new HttpClient({ baseUrl: server.url, token: 't' }));
      const err = await client
        .total({ start: '2019-08-01T11:00:00Z', end: '2019-08-01T12:00:00Z' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseFormatError);
      expect((err as ResponseFormatError).kind).toBe('schema');
      expect((err as ResponseFormatError).problem).toMatch(/^hits: Expected number.*"lots"/);
    } finally {
      await server.close();
    }
  });
});
