/** Traffic statistics v3 (spec 002, part A): its endpoints, fields and filters, read by the client and the simulator.
 * */

/** What a key's values are: text, an integer (`code`), or a readable name in the response language. */
export type KeyType = 'text' | 'integer' | 'name';

/**
 * What a key describes: the scope every call has (service, account), the resource that served the traffic (its
 * identifier, name and host), or the request (the audience: where from, with what, for which path, answered how).
 */
export type KeySubject = 'scope' | 'resource' | 'request';

interface KeySpec {
  /** The tag a point carries it as. */
  tag: string;
  type: KeyType;
  /** A filter of spec A1 (sent and echoed in this table's order); the others are only result keys of groupings. */
  filter: boolean;
  of: KeySubject;
  /** What the tag means, for docs/schema.md. */
  text: string;
}

/**
 * Spec A1/A2: every key of the statistics APIs — filters and the result keys of groupings — with the tag it is
 * stored as. The filter names, the tags written, the response schema's keys, the query's filter fields, the
 * measurements' texts and the simulator's dimensions all derive from this table.
 */
export const STATISTIC_KEYS = {
  service: {
    tag: 'service',
    type: 'text',
    filter: true,
    of: 'scope',
    text: 'media or static (the service filter of the call); all when not filtered',
  },
  account: {
    tag: 'account',
    type: 'text',
    filter: true,
    of: 'scope',
    text: 'account name (every point belongs to one account: there is no all-accounts point)',
  },
  country: { tag: 'country', type: 'text', filter: true, of: 'request', text: 'country code' },
  region: { tag: 'region', type: 'text', filter: true, of: 'request', text: 'region code' },
  platform: { tag: 'platform', type: 'text', filter: true, of: 'request', text: 'platform / OS' },
  browser: { tag: 'browser', type: 'text', filter: true, of: 'request', text: 'browser' },
  host: { tag: 'host', type: 'text', filter: true, of: 'resource', text: 'host part of the URL' },
  path: { tag: 'path', type: 'text', filter: true, of: 'request', text: 'path part of the URL' },
  referrer: { tag: 'referrer', type: 'text', filter: true, of: 'request', text: 'referrer' },
  code: { tag: 'code', type: 'integer', filter: true, of: 'request', text: 'HTTP response code' },
  custom: { tag: 'custom', type: 'text', filter: true, of: 'request', text: 'label' },
  resource: { tag: 'resource', type: 'text', filter: true, of: 'resource', text: 'resource identifier' },
  country_name: {
    tag: 'country_name',
    type: 'name',
    filter: false,
    of: 'request',
    text: 'readable country name in the response language',
  },
  region_name: {
    tag: 'region_name',
    type: 'name',
    filter: false,
    of: 'request',
    text: 'readable region name in the response language; (empty) when the service has none',
  },
  resource_name: { tag: 'resource_name', type: 'name', filter: false, of: 'resource', text: 'resource name' },
} as const satisfies Record<string, KeySpec>;

export type StatisticKey = keyof typeof STATISTIC_KEYS;
export type KeyTable = typeof STATISTIC_KEYS;

/** The keys of the table whose row matches `row`, in table order. */
function keysWhere(row: (spec: KeySpec) => boolean): StatisticKey[] {
  return (Object.keys(STATISTIC_KEYS) as StatisticKey[]).filter((key) => row(STATISTIC_KEYS[key]));
}

/** Spec A1 filters, in the order they are sent and echoed. */
export type FilterName = { [K in StatisticKey]: KeyTable[K]['filter'] extends true ? K : never }[StatisticKey];
export const FILTER_NAMES = keysWhere((k) => k.filter) as FilterName[];

/** The keys of a row or an envelope that become tags of its own (service and account every point has). */
export type KeyTagName = { [K in StatisticKey]: KeyTable[K]['of'] extends 'scope' ? never : K }[StatisticKey];
export const KEY_TAGS = keysWhere((k) => k.of !== 'scope') as KeyTagName[];

/** The keys that describe the request: what the simulator splits an account's traffic by. */
export type RequestKey = { [K in StatisticKey]: KeyTable[K]['of'] extends 'request' ? K : never }[StatisticKey];

/** A key's value as a query sends it: a number for integer keys, text otherwise. */
export type KeyValue<K extends StatisticKey> = KeyTable[K]['type'] extends 'integer' ? number : string;

interface GroupingSpec {
  /** The key that tells its groups apart. */
  key: StatisticKey;
  /** Spec A2, "Result key of each element", in order; default: `key` alone. */
  keys?: readonly StatisticKey[];
  /** Spec A2, "Differences in parameters": parameters the endpoint requires or does not accept. */
  requires?: readonly FilterName[];
  forbids?: readonly FilterName[];
}

/** Spec A2: the grouping endpoints (each also exists under /times). */
const GROUPINGS = {
  customs: { key: 'custom' },
  referrers: { key: 'referrer' },
  codes: { key: 'code' },
  regions: { key: 'region', keys: ['country', 'region', 'country_name', 'region_name'] },
  browsers: { key: 'browser' },
  platforms: { key: 'platform' },
  resources: { key: 'resource', keys: ['resource', 'resource_name'] },
  hosts: { key: 'host', requires: ['account'], forbids: ['path'] },
  paths: { key: 'path', requires: ['account', 'host'] },
  countries: { key: 'country', keys: ['country', 'country_name'], forbids: ['region'] },
  accounts: { key: 'account', forbids: ['host', 'path', 'resource'] },
} as const satisfies Record<string, GroupingSpec>;

export type StatisticGrouping = keyof typeof GROUPINGS;
export const STATISTIC_GROUPINGS = Object.keys(GROUPINGS) as StatisticGrouping[];

/** The key that tells a grouping's groups apart, e.g. `region` for regions. */
export type GroupingKey<G extends StatisticGrouping> = (typeof GROUPINGS)[G]['key'];
export const GROUPING_KEY = perGrouping((spec) => spec.key) as { readonly [G in StatisticGrouping]: GroupingKey<G> };

/** Spec A2, "Result key of each element". */
export const GROUPING_KEYS = perGrouping((spec) => spec.keys ?? [spec.key]);

/** Spec A2, "Differences in parameters": parameters an endpoint requires or does not accept. */
export const GROUPING_RULES = perGrouping((spec) => ({ requires: spec.requires ?? [], forbids: spec.forbids ?? [] }));

function perGrouping<T>(value: (spec: GroupingSpec) => T): Readonly<Record<StatisticGrouping, T>> {
  return Object.fromEntries(STATISTIC_GROUPINGS.map((g) => [g, value(GROUPINGS[g])])) as Record<StatisticGrouping, T>;
}

export const STATISTIC_FIELDS = ['traffic', 'cache_ratio', 'hits', 'bandwidth'] as const;
export type StatisticField = (typeof STATISTIC_FIELDS)[number];

export const STATISTIC_SERVICES = ['media', 'static'] as const;
export type StatisticService = (typeof STATISTIC_SERVICES)[number];

/** Which endpoint a query is for: `/` (total), `/times`, `/<g>` or `/times/<g>`. */
export interface StatisticEndpoint {
  grouping: StatisticGrouping | undefined;
  times: boolean;
}

export function endpointPath(e: StatisticEndpoint): string {
  const parts = [e.times ? 'times' : '', e.grouping ?? ''].filter((p) => p !== '');
  return `/${parts.join('/')}`;
}
