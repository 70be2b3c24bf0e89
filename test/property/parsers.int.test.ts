import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { HttpClient } from '../../src/http/client.js';
import { ResponseFormatError } from '../../src/http/errors.js';
import {
  dvrDeleteAllResponseSchema,
  dvrDeleteRangeResponseSchema,
  dvrGetResponseSchema,
} from '../../src/sources/dvr/schemas.js';
import { metricsAggregateSchema, metricsByResourceSchema } from '../../src/sources/metrics/schema.js';
import {
  statisticGroupedSchema,
  statisticTimesGroupedSchema,
  statisticTimesSchema,
  statisticTotalSchema,
} from '../../src/sources/statistic/schemas.js';
import {
  streamstatGroupedSchema,
  streamstatTimesGroupedSchema,
  streamstatTimesSchema,
  streamstatTotalSchema,
} from '../../src/sources/streamstat/schemas.js';
import type { ApiName } from '../../src/spec/apis.js';
import { STREAMSTAT_GROUPINGS } from '../../src/spec/streamstat.js';
import * as arb from './arbitraries.js';

/** A server answering 200 with whatever body the property put in `next`. */
let next = '';
let server: Server;
let http: HttpClient;
beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(next));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  http = new HttpClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: 'property-token',
  });
});
afterAll(async () => {
  await http.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Parser {
  name: string;
  api: ApiName;
  schema: ZodType<unknown>;
  valid: fc.Arbitrary<unknown>;
}

const parsers: Parser[] = [
  { name: 'metrics aggregate', api: 'metrics', schema: metricsAggregateSchema, valid: arb.metricsAggregate },
  { name: 'metrics by resource', api: 'metrics', schema: metricsByResourceSchema, valid: arb.metricsByResource },
  { name: 'statistic total', api: 'statistic', schema: statisticTotalSchema, valid: arb.statisticTotal },
  { name: 'statistic grouped', api: 'statistic', schema: statisticGroupedSchema, valid: arb.statisticGrouped },
  { name: 'statistic /times', api: 'statistic', schema: statisticTimesSchema, valid: arb.statisticTimes },
  {
    name: 'statistic /times grouped',
    api: 'statistic',
    schema: statisticTimesGroupedSchema,
    valid: arb.statisticTimesGrouped,
  },
  { name: 'streamstat total', api: 'streamstat', schema: streamstatTotalSchema, valid: arb.streamstatTotal },
  { name: 'streamstat buckets', api: 'streamstat', schema: streamstatTimesSchema, valid: arb.streamstatTimes },
  ...STREAMSTAT_GROUPINGS.flatMap((g): Parser[] => [
    { name: `streamstat /${g}`, api: 'streamstat', schema: streamstatGroupedSchema(g), valid: arb.streamstatGrouped },
    {
      name: `streamstat /${g} buckets`,
      api: 'streamstat',
      schema: streamstatTimesGroupedSchema(g),
      valid: arb.streamstatTimesGrouped,
    },
  ]),
  { name: 'dvr get', api: 'dvr', schema: dvrGetResponseSchema, valid: arb.dvrGet },
  {
    name: 'dvr delete range',
    api: 'dvr',
    schema: dvrDeleteRangeResponseSchema,
    valid: fc.record({
      status: fc.constant('Completed'),
      stream_name: arb.text,
      host: arb.text,
      from_ts: fc.integer(),
      to_ts: fc.integer(),
    }),
  },
  {
    name: 'dvr delete all',
    api: 'dvr',
    schema: dvrDeleteAllResponseSchema,
    valid: fc.record({
      status: fc.constant('Completed'),
      stream_name: arb.text,
      host: arb.text,
      all: fc.constant(true),
    }),
  },
];

/** What a server might send: a valid body with one value replaced or removed, any JSON, or text that is not JSON. */
const bodyText = (p: Parser) =>
  fc.oneof(
    { weight: 5, arbitrary: arb.mutated(p.valid).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: p.valid.map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string() },
    {
      weight: 1,
      arbitrary: p.valid
        .map((v) => JSON.stringify(v))
        .chain((t) => fc.nat({ max: t.length }).map((n) => t.slice(0, n))),
    },
  );

describe('every response parser: a typed result or a ResponseFormatError, never a crash', () => {
  it.each(parsers.map((p) => [p.name, p] as const))('%s', async (_name, p) => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(bodyText(p), async (text) => {
        next = text;
        try {
          const res = await http.request({ api: p.api, method: 'GET', path: '/any', schema: p.schema });
          // Accepted means the schema holds for what the caller gets.
          expect(p.schema.safeParse(res.body).success).toBe(true);
          accepted++;
        } catch (err) {
          if (!(err instanceof ResponseFormatError)) throw err;
          expect(err.message).toMatch(/malformed response/);
          refused++;
        }
      }),
      { numRuns: 100 },
    );
    // Both outcomes were exercised.
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
