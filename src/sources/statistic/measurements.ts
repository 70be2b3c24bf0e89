import type { MeasurementSchema } from '../../points.js';

export const TRAFFIC_MEASUREMENT = 'cdn_traffic';

/** Traffic statistics v3: one point per bucket (× group) of /times and /times/<g>; time = bucket start. */
export const statisticMeasurements: MeasurementSchema[] = [
  {
    name: TRAFFIC_MEASUREMENT,
    description: 'CDN traffic, hits, cache ratio and peak bandwidth per bucket, in total or per group',
    source: 'GET /app/statistic/v3/times and /times/<grouping> (also / and /<grouping>, time = window start)',
    tags: {
      account: 'account name (the group, or the account filter of the call); all when neither',
      grouping: 'total, or the grouping: customs, referrers, codes, regions, browsers, platforms, resources, hosts, paths, countries, accounts',
      service: 'media or static (the service filter of the call); all when not filtered',
      country: 'country code (groupings countries/regions, or the country filter)',
      country_name: 'readable country name in the response language',
      region: 'region code (grouping regions, or the region filter)',
      region_name: 'readable region name in the response language; (empty) when the service has none',
      browser: 'browser (grouping browsers, or the browser filter)',
      platform: 'platform / OS (grouping platforms, or the platform filter)',
      referrer: 'referrer (grouping referrers, or the referrer filter)',
      code: 'HTTP response code (grouping codes, or the code filter)',
      custom: 'label (grouping customs, or the custom filter)',
      resource: 'resource identifier (grouping resources, or the resource filter)',
      resource_name: 'resource name (grouping resources)',
      host: 'host part of the URL (grouping hosts; the host filter, e.g. of /paths)',
      path: 'path part of the URL (grouping paths, or the path filter)',
    },
    fields: {
      traffic: { type: 'integer', description: 'traffic in the bucket', unit: 'bytes', nonNegative: true },
      hits: { type: 'integer', description: 'number of connections in the bucket', unit: 'hits', nonNegative: true },
      cache_ratio: { type: 'float', description: 'share served from cache, 0..1, unrounded', unit: 'ratio', nonNegative: true },
      bandwidth: { type: 'integer', description: 'peak speed in the bucket', unit: 'bits/s', nonNegative: true },
    },
  },
];
