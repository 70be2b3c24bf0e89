import { describe, expect, it } from 'vitest';
import { SCHEMA } from '../../src/schema.js';
import { statisticMeasurements, TRAFFIC_MEASUREMENT } from '../../src/sources/statistic/measurements.js';
import { groupedToPoints, timesGroupedToPoints, timesToPoints, totalToPoints } from '../../src/sources/statistic/points.js';
import {
  statisticGroupedSchema,
  statisticTimesGroupedSchema,
  statisticTimesSchema,
  statisticTotalSchema,
} from '../../src/sources/statistic/schemas.js';
import { useSimulator } from '../helpers/sim.js';
import { clientFor, newClock, WINDOW } from './helpers.js';

const ctx = useSimulator({ clock: newClock(), quotas: { statistic: null } });
const values = { traffic: 1000, hits: 10, cache_ratio: 0.25, bandwidth: 133 };

describe('cdn_traffic points', () => {
  it('/times: one point per bucket at the bucket start; account and service are `all` when not filtered', () => {
    const body = statisticTimesSchema.parse({
      start: '2026-03-10T03:00:00+03:00',
      end: '2026-03-10T05:00:00+03:00',
      granularity: 'PT1H',
      account: null,
      result: [
        { start: '2026-03-10T03:00:00+03:00', end: '2026-03-10T04:00:00+03:00', ...values },
        { start: '2026-03-10T04:00:00+03:00', end: '2026-03-10T05:00:00+03:00', traffic: 5, hits: 1 },
      ],
    });
    expect(timesToPoints(body)).toEqual([
      { measurement: TRAFFIC_MEASUREMENT, tags: { account: 'all', grouping: 'total', service: 'all' }, fields: values, time: Date.parse('2026-03-10T00:00:00Z') },
      { measurement: TRAFFIC_MEASUREMENT, tags: { account: 'all', grouping: 'total', service: 'all' }, fields: { traffic: 5, hits: 1 }, time: Date.parse('2026-03-10T01:00:00Z') },
    ]);
  });

  it('/times/<g>: one point per bucket × row, keys as tags, empty values kept (the sink writes EMPTY_TAG), filters echoed as tags', () => {
    const body = statisticTimesGroupedSchema.parse({
      start: '2026-03-10T00:00:00Z',
      end: '2026-03-10T01:00:00Z',
      granularity: 'PT1H',
      account: 'acme',
      service: 'media',
      country: 'KZ',
      result: [
        {
          start: '2026-03-10T00:00:00Z',
          end: '2026-03-10T01:00:00Z',
          result: [
            { country: 'KZ', region: 'KZ-00', country_name: 'Kazakhstan', region_name: '', ...values },
            { country: 'KZ', region: 'KZ-ALA', country_name: 'Kazakhstan', region_name: 'Almaty', ...values },
          ],
        },
      ],
    });
    const points = timesGroupedToPoints('regions', body);
    expect(points).toHaveLength(2);
    expect(points[0]!.tags).toEqual({
      account: 'acme',
      grouping: 'regions',
      service: 'media',
      country: 'KZ',
      country_name: 'Kazakhstan',
      region: 'KZ-00',
      region_name: '',
    });
    expect(points[1]!.tags.region_name).toBe('Almaty');
    expect(points[0]!.time).toBe(Date.parse('2026-03-10T00:00:00Z'));
  });

  it('row keys win over echoed filters; codes and resources become string tags', () => {
    const body = statisticGroupedSchema.parse({
      start: '2026-03-10T00:00:00Z',
      end: '2026-03-10T01:00:00Z',
      account: null,
      result: [{ account: 'globex', code: 404, ...values }],
    });
    expect(groupedToPoints('accounts', body)[0]!.tags).toEqual({ account: 'globex', grouping: 'accounts', service: 'all', code: '404' });
    const total = statisticTotalSchema.parse({ start: '2026-03-10T00:00:00Z', end: '2026-03-10T01:00:00Z', resource: 123, ...values });
    expect(totalToPoints(total)[0]).toMatchObject({ tags: { resource: '123', grouping: 'total' }, fields: values });
  });

  it('every point the simulator yields fits the cdn_traffic schema (tags and field types)', async () => {
    expect(SCHEMA.get(TRAFFIC_MEASUREMENT)).toBe(statisticMeasurements[0]);
    const schema = statisticMeasurements[0]!;
    const client = clientFor(ctx.sim);
    const q = { ...WINDOW, granularity: 'PT30M' };
    const points = [
      ...timesToPoints((await client.times(q)).body),
      ...(await Promise.all(
        (['regions', 'resources', 'codes', 'customs', 'referrers', 'paths'] as const).map(async (g) => {
          const extra = g === 'paths' ? { account: ctx.sim.accounts[0]!, host: ctx.sim.world.accounts[0]!.resources[0]!.cname } : {};
          return timesGroupedToPoints(g, (await client.timesGrouped(g, { ...q, ...extra })).body);
        }),
      )).flat(),
    ];
    expect(points.length).toBeGreaterThan(40);
    for (const p of points) {
      for (const tag of Object.keys(p.tags)) expect(schema.tags, tag).toHaveProperty(tag);
      for (const value of Object.values(p.tags)) expect(typeof value).toBe('string');
      for (const [field, value] of Object.entries(p.fields)) {
        const type = schema.fields[field]!.type;
        expect(type === 'integer' ? Number.isInteger(value) : typeof value === 'number', field).toBe(true);
      }
    }
    expect(points.some((p) => p.tags.custom === '')).toBe(true);
  });
});
