import { describe, expect, it } from 'vitest';
import {
  streamstatMeasurements,
  usersMeasurement,
  viewsMeasurement,
} from '../../src/sources/streamstat/measurements.js';

const byName = new Map(streamstatMeasurements.map((m) => [m.name, m]));

describe('stream views measurements (one aggregation level each)', () => {
  it('lays out cdn_views, cdn_views_by_<grouping> and cdn_users_{hourly,daily}[_by_<grouping>]', () => {
    const groups = ['streams', 'stream_types', 'browsers', 'platforms'];
    const expected = [
      'cdn_views',
      ...groups.map((g) => `cdn_views_by_${g}`),
      ...['hourly', 'daily'].flatMap((p) => [`cdn_users_${p}`, ...groups.map((g) => `cdn_users_${p}_by_${g}`)]),
    ];
    expect(streamstatMeasurements.map((m) => m.name)).toEqual(expected);
    expect(viewsMeasurement('total')).toBe('cdn_views');
    expect(viewsMeasurement('accounts')).toBe('cdn_views');
    expect(viewsMeasurement('stream-types')).toBe('cdn_views_by_stream_types');
    expect(usersMeasurement('P1D', 'browsers')).toBe('cdn_users_daily_by_browsers');
  });

  it('no grouping tag; views sum and peaks max, never users beside them; users are last (never summed)', () => {
    for (const m of streamstatMeasurements) {
      expect(m.tags, m.name).not.toHaveProperty('grouping');
      expect(m.tags, m.name).toHaveProperty('account');
      expect(m.query, m.name).toContain(`FROM "${m.name}"`);
      if (m.name.startsWith('cdn_views')) {
        expect(Object.keys(m.fields), m.name).toEqual(['views', 'views_max']);
        expect(m.fields.views!.aggregate).toBe('sum');
        expect(m.fields.views_max!.aggregate).toBe('max');
        expect(m.query).not.toMatch(/users/);
      } else {
        expect(Object.keys(m.fields), m.name).toEqual(['unique_users']);
        expect(m.fields.unique_users!.aggregate).toBe('last');
        expect(m.query).toMatch(/last\("unique_users"\)/);
        expect(m.query).not.toMatch(/sum\(/);
      }
    }
    expect(Object.keys(byName.get('cdn_views_by_streams')!.tags).sort()).toEqual(['account', 'stream']);
    expect(Object.keys(byName.get('cdn_users_daily_by_stream_types')!.tags).sort()).toEqual(['account', 'stream_type']);
    expect(Object.keys(byName.get('cdn_views')!.tags)).toEqual(['account']);
  });
});
