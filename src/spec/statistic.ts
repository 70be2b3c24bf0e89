/** Traffic statistics v3 (spec 002, part A): its endpoints, fields and filters, read by the client and the simulator. */

/** Spec A2: the grouping endpoints; each also exists under /times. */
export const STATISTIC_GROUPINGS = [
  'customs',
  'referrers',
  'codes',
  'regions',
  'browsers',
  'platforms',
  'resources',
  'hosts',
  'paths',
  'countries',
  'accounts',
] as const;
export type StatisticGrouping = (typeof STATISTIC_GROUPINGS)[number];

export const STATISTIC_FIELDS = ['traffic', 'cache_ratio', 'hits', 'bandwidth'] as const;
export type StatisticField = (typeof STATISTIC_FIELDS)[number];

export const STATISTIC_SERVICES = ['media', 'static'] as const;
export type StatisticService = (typeof STATISTIC_SERVICES)[number];

/** Spec A2, "Result key of each element". */
export const GROUPING_KEYS: Record<StatisticGrouping, readonly string[]> = {
  customs: ['custom'],
  referrers: ['referrer'],
  codes: ['code'],
  regions: ['country', 'region', 'country_name', 'region_name'],
  browsers: ['browser'],
  platforms: ['platform'],
  resources: ['resource', 'resource_name'],
  hosts: ['host'],
  paths: ['path'],
  countries: ['country', 'country_name'],
  accounts: ['account'],
};

/** Spec A2, "Differences in parameters": parameters an endpoint requires or does not accept. */
export const GROUPING_RULES: Record<StatisticGrouping, { requires: readonly FilterName[]; forbids: readonly FilterName[] }> = {
  customs: { requires: [], forbids: [] },
  referrers: { requires: [], forbids: [] },
  codes: { requires: [], forbids: [] },
  regions: { requires: [], forbids: [] },
  browsers: { requires: [], forbids: [] },
  platforms: { requires: [], forbids: [] },
  resources: { requires: [], forbids: [] },
  hosts: { requires: ['account'], forbids: ['path'] },
  paths: { requires: ['account', 'host'], forbids: [] },
  countries: { requires: [], forbids: ['region'] },
  accounts: { requires: [], forbids: ['host', 'path', 'resource'] },
};

/** Spec A1 filters, in the order they are sent and echoed. */
export const FILTER_NAMES = [
  'service',
  'account',
  'country',
  'region',
  'platform',
  'browser',
  'host',
  'path',
  'referrer',
  'code',
  'custom',
  'resource',
] as const;
export type FilterName = (typeof FILTER_NAMES)[number];

/** Which endpoint a query is for: `/` (total), `/times`, `/<g>` or `/times/<g>`. */
export interface StatisticEndpoint {
  grouping: StatisticGrouping | undefined;
  times: boolean;
}

export function endpointPath(e: StatisticEndpoint): string {
  const parts = [e.times ? 'times' : '', e.grouping ?? ''].filter((p) => p !== '');
  return `/${parts.join('/')}`;
}
