import { describe, expect, it } from 'vitest';
import { SCHEMA } from '../../src/schema/schema.js';
import {
  statisticMeasurements,
  TRAFFIC_MEASUREMENT,
  trafficMeasurement,
} from '../../src/sources/statistic/measurements.js';
import {
  groupedToPoints,
  timesGroupedToPoints,
  timesToPoints,
  totalToPoints,
} from '../../src/sources/statistic/points.js';
import {
  statisticGroupedSchema,
  statisticTimesGroupedSchema,
  statisticTimesSchema,
  statisticTotalSchema,
} from '../../src/sources/statistic/schemas.js';
import { useSimulator } from '../helpers/sim.js';
import { clientFor, EVERY_GROUPING, newClock, WINDOW } from './helpers.js';

const ctx = useSimulator({ clock: newClock(), quotas: { statistic: null } });
const values = { traffic: 1000, hits: 10, cache_ratio: 0.25, bandwidth: 133 };
/** The API's values as fields: bandwidth is the peak, cached_traffic = round(traffic × cache_ratio). */
const fields = { traffic: 1000, hits: 10, cached_traffic: 250, cache_ratio: 0.25, bandwidth_peak: 133 };

describe('cdn_traffic points', () => {
  it('/times: one point per bucket at its start, of the account asked for; service `all` when not filtered', () => {
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
    expect(timesToPoints(body, { account: 'acme' })).toEqual([
      {
        measurement: TRAFFIC_MEASUREMENT,
        tags: { account: 'acme', service: 'all' },
        fields,
        time: Date.parse('2026-03-10T00:00:00Z'),
      },
      {
        measurement: TRAFFIC_MEASUREMENT,
        tags: { account: 'acme', service: 'all' },
        fields: { traffic: 5, hits: 1 },
        time: Date.parse('2026-03-10T01:00:00Z'),
      },
    ]);
    // Never an all-accounts point: without an account from the call or the echo there is no account tag at all.
    expect(timesToPoints(body)[0]!.tags).toEqual({ service: 'all' });
  });

  it('/times/<g>: a point per bucket × row, keys as tags, empty values kept (as EMPTY_TAG), filters as tags', () => {
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
    expect(points.map((p) => p.measurement)).toEqual(['cdn_traffic_by_regions', 'cdn_traffic_by_regions']);
    expect(points[0]!.tags).toEqual({
      account: 'acme',
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
    // The accounts grouping's rows are cdn_traffic points of the row's account (the same series as its own total).
    expect(groupedToPoints('accounts', body, { account: 'acme' })[0]).toMatchObject({
      measurement: TRAFFIC_MEASUREMENT,
      tags: { account: 'globex', service: 'all', code: '404' },
    });
    const total = statisticTotalSchema.parse({
      start: '2026-03-10T00:00:00Z',
      end: '2026-03-10T01:00:00Z',
      resource: 123,
      ...values,
    });
    expect(totalToPoints(total, { account: 'acme' })[0]).toMatchObject({
      tags: { account: 'acme', resource: '123' },
      fields,
    });
  });

  it('one measurement per aggregation level: no grouping tag; cdn_traffic_by_<g> for each dimension grouping', () => {
    expect(trafficMeasurement('total')).toBe('cdn_traffic');
    expect(trafficMeasurement('accounts')).toBe('cdn_traffic');
    expect(trafficMeasurement('countries')).toBe('cdn_traffic_by_countries');
    expect(statisticMeasurements.map((m) => m.name)).toEqual([
      'cdn_traffic',
      ...EVERY_GROUPING.filter((g) => g !== 'accounts').map((g) => `cdn_traffic_by_${g}`),
    ]);
    for (const m of statisticMeasurements) {
      expect(m.tags, m.name).not.toHaveProperty('grouping');
      expect(Object.keys(m.fields), m.name).toEqual([
        'traffic',
        'hits',
        'cached_traffic',
        'cache_ratio',
        'bandwidth_peak',
      ]);
      expect(m.fields.cache_ratio!.aggregate).toEqual({ ratio: ['cached_traffic', 'traffic'] });
      expect(m.fields.bandwidth_peak!.aggregate).toBe('max');
      expect(m.query, m.name).toContain('sum("cached_traffic") / sum("traffic")');
    }
    expect(Object.keys(SCHEMA.get('cdn_traffic_by_regions')!.tags)).toEqual([
      'account',
      'service',
      'country',
      'region',
      'country_name',
      'region_name',
    ]);
    expect(Object.keys(SCHEMA.get('cdn_traffic_by_paths')!.tags)).toEqual(['account', 'service', 'host', 'path']);
  });

  it('every point the simulator yields fits the schema of its measurement (tags and field types)', async () => {
    const client = clientFor(ctx.sim);
    const account = ctx.sim.accounts[0]!;
    const q = { ...WINDOW, granularity: 'PT30M' };
    const points = [
      ...timesToPoints((await client.times({ ...q, account })).body, { account }),
      ...(
        await Promise.all(
          (['regions', 'resources', 'codes', 'customs', 'referrers', 'paths', 'accounts'] as const).map(async (g) => {
            const extra =
              g === 'paths'
                ? { account, host: ctx.sim.world.accounts[0]!.resources[0]!.cname }
                : g === 'accounts'
                  ? {}
                  : { account };
            return timesGroupedToPoints(g, (await client.timesGrouped(g, { ...q, ...extra })).body, { account });
          }),
        )
      ).flat(),
    ];
    expect(points.length).toBeGreaterThan(40);
    for (const p of points) {
      const schema = SCHEMA.get(p.measurement)!;
      expect(statisticMeasurements, p.measurement).toContain(schema);
      expect(p.tags.account, p.measurement).toBeDefined();
      for (const tag of Object.keys(p.tags)) expect(schema.tags, `${p.measurement} ${tag}`).toHaveProperty(tag);
      for (const value of Object.values(p.tags)) expect(typeof value).toBe('string');
      for (const [field, value] of Object.entries(p.fields)) {
        const type = schema.fields[field]!.type;
        expect(type === 'integer' ? Number.isInteger(value) : typeof value === 'number', field).toBe(true);
      }
      expect(p.fields.cached_traffic).toBe(Math.round((p.fields.traffic as number) * (p.fields.cache_ratio as number)));
    }
    expect(points.some((p) => p.tags.custom === '')).toBe(true);
  });
});
