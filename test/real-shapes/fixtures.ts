/**
 * Each response as the simulator sends it by default ("seed" shape) next to the same data as public clients of the
 * real service show it: echoes as strings (`"code": "200"`, `"limit": "1000"`, `"fields": "views,users"`), statistic
 * times without a zone, a numeric `status`, unknown extra keys, hex DVR host ids. The twins must give the same points.
 */

const START = '2019-08-01T11:00:00';
const END = '2019-08-01T12:00:00';
const MID = '2019-08-01T11:30:00';

export const statisticTotal = {
  seed: {
    start: `${START}Z`,
    end: `${END}Z`,
    account: 'acme',
    code: 200,
    hits: 120,
    traffic: 52_000,
    cache_ratio: 0.8,
    bandwidth: 9000,
  },
  real: {
    start: START,
    end: END,
    account: 'acme',
    code: '200',
    hits: 120,
    traffic: 52_000,
    cache_ratio: 0.8,
    bandwidth: 9000,
    service_version: 3,
  },
};

/** The envelope of a seed-shaped statistic /times answer (times with Z). */
const seedTimes = { start: `${START}Z`, end: `${END}Z`, granularity: 'PT30M', account: 'acme' };
/** The same as the real statistic answers it: times without a zone, `limit` echoed as text. */
const realTimes = { start: START, end: END, granularity: 'PT30M', account: 'acme', limit: '1000' };

const codeRows = (code: number | string) => [
  { code, hits: 100, traffic: 40_000, cache_ratio: 0.75, bandwidth: 5000 },
  { code: typeof code === 'number' ? 404 : '404', hits: 20, traffic: 12_000, cache_ratio: 1, bandwidth: 4000 },
];

export const statisticTimesCodes = {
  seed: {
    ...seedTimes,
    result: [
      { start: `${START}Z`, end: `${MID}Z`, result: codeRows(200) },
      { start: `${MID}Z`, end: `${END}Z`, result: codeRows(200) },
    ],
  },
  real: {
    ...realTimes,
    offset: '0',
    language: 'en',
    result: [
      { start: START, end: MID, result: codeRows('200') },
      { start: MID, end: END, result: codeRows('200'), total_rows: 2 },
    ],
  },
};

export const statisticTimes = {
  seed: {
    ...seedTimes,
    result: [
      { start: `${START}Z`, end: `${MID}Z`, hits: 7, traffic: 700, cache_ratio: 0.5, bandwidth: 10 },
      { start: `${MID}Z`, end: `${END}Z`, hits: 9, traffic: 900, cache_ratio: 0.25, bandwidth: 12 },
    ],
  },
  real: {
    ...realTimes,
    result: [
      { start: START, end: MID, hits: '7', traffic: '700', cache_ratio: '0.5', bandwidth: 10 },
      { start: MID, end: END, hits: 9, traffic: 900, cache_ratio: 0.25, bandwidth: '12' },
    ],
  },
};

const streams = [
  { stream: 'live/main', account: 'acme', views: 40, users: 12 },
  { stream: 'vod/intro', account: 'acme', views: 3, users: 2 },
];

export const streamstatTimesStreams = {
  seed: {
    start: `${START}Z`,
    end: `${END}Z`,
    fields: ['views', 'users'],
    account: 'acme',
    granularity: 'PT30M',
    limit: 1000,
    result: [
      { start: `${START}Z`, end: `${MID}Z`, result: streams },
      { start: `${MID}Z`, end: `${END}Z`, result: streams.slice(0, 1) },
    ],
  },
  real: {
    start: START,
    end: END,
    fields: 'views,users',
    account: 'acme',
    granularity: 'PT30M',
    limit: '1000',
    sort: '-views',
    locale: 'en',
    result: [
      { start: START, end: MID, result: streams },
      { start: MID, end: END, result: streams.slice(0, 1) },
    ],
  },
};

export const streamstatTimes = {
  seed: {
    start: `${START}Z`,
    end: `${END}Z`,
    fields: ['views', 'users', 'views_max'],
    account: 'acme',
    granularity: 'PT30M',
    result: [{ start: `${START}Z`, end: `${MID}Z`, views: 5, users: 3, views_max: 2 }],
  },
  real: {
    start: START,
    end: END,
    fields: 'views,users,views_max',
    account: 'acme',
    granularity: 'PT30M',
    result: [{ start: START, end: MID, views: '5', users: 3, views_max: '2' }],
  },
};

const metricsData = {
  edge_requests_total: 50,
  edge_status_200: 48,
  edge_hit_ratio: 0.9,
  edge_request_time_0_250k: null,
};

export const metricsAggregate = {
  seed: {
    status: 'OK',
    start: '2019-08-01T11:00:00',
    end: '2019-08-01T11:05:00',
    account: 'acme',
    metrics: Object.keys(metricsData),
    data: [metricsData],
  },
  real: {
    status: 200,
    start: '2019-08-01T11:00:00',
    end: '2019-08-01T11:05:00',
    account: 'acme',
    metrics: Object.keys(metricsData),
    data: [{ ...metricsData, edge_requests_total: '50', edge_hit_ratio: '0.9', edge_status_999_new: 'n/a' }],
    request_id: 'f3a9',
  },
};

export const metricsByResource = {
  seed: {
    status: 'OK',
    start: '2019-08-01T11:00:00',
    end: '2019-08-01T11:05:00',
    account: 'acme',
    metrics: ['edge_requests_total'],
    data: [{ cname: 'cdn.acme.example', resource: '12', resource_name: 'site', edge_requests_total: 50 }],
  },
  real: {
    status: 200,
    start: '2019-08-01T11:00:00Z',
    end: '2019-08-01T11:05:00Z',
    account: 'acme',
    metrics: ['edge_requests_total'],
    data: [
      { cname: 'cdn.acme.example', resource: '12', resource_name: 'site', edge_requests_total: 50, origin: 'shield-2' },
    ],
  },
};

/** Opaque hex node ids; `1e3…` would read as a number if anything coerced it. */
const HOSTS = ['1e30a9c4d2b7', '5f3a9c0e11d8'];
const dvrRecord = (host: string) => ({
  stream_name: 'live/main',
  host,
  is_alive: true,
  dvr: {
    enabled: true,
    window: 14_400,
    duration: 3500,
    from: 1_564_657_200,
    ranges: [{ from: 1_564_657_200, duration: 3500 }],
  },
});

export const dvrGet = {
  seed: { status: 'Completed', stream_name: 'live/main', data: HOSTS.map(dvrRecord) },
  real: {
    status: 200,
    stream_name: 'live/main',
    account_name: 'acme',
    data: HOSTS.map((h) => ({
      ...dvrRecord(h),
      node_region: 'eu',
      dvr: { ...dvrRecord(h).dvr, from: '1564657200', storage: 'ssd' },
    })),
  },
};
