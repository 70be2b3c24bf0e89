import type { MeasurementSchema } from '../../points.js';

export const VIEWS_MEASUREMENT = 'cdn_views';

/** Stream view statistics v2: one point per total, group, or bucket × group; time = window/bucket start. */
export const streamstatMeasurements: MeasurementSchema[] = [
  {
    name: VIEWS_MEASUREMENT,
    description: 'Stream views, unique users and peak simultaneous views per window or bucket, in total or per group',
    source: 'GET /app/streamstat/v2/ and /streams, /accounts, /stream-types, /browsers, /platforms',
    tags: {
      account: 'account name (the group, or the account filter of the call); absent when neither',
      grouping: 'total, or the grouping endpoint: streams, accounts, stream-types, browsers, platforms',
      stream: 'stream name (grouping streams)',
      stream_type: 'live, vod or unknown (grouping stream-types)',
      browser: 'browser (grouping browsers, or the browser filter of the call)',
      platform: 'platform / OS (grouping platforms, or the platform filter of the call)',
    },
    fields: {
      views: { type: 'integer', description: 'number of views observed in the interval', unit: 'views', nonNegative: true },
      users: { type: 'integer', description: 'unique users (IP + User-Agent) in the interval', unit: 'users', nonNegative: true },
      views_max: { type: 'integer', description: 'peak simultaneous views in the interval', unit: 'views', nonNegative: true },
    },
  },
];
