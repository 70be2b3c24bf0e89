import { DateTime } from 'luxon';
import { bucketSpans } from '../../spec/granularity.js';
import { STATISTIC_KEYS, type StatisticGrouping, type StatisticKey } from '../../spec/statistic.js';
import {
  dimensionRowKeys,
  DIMENSIONS,
  GROUPING_DIMENSION,
  type DimensionFilters,
  type DimensionGrouping,
  type Language,
} from '../model/statistic-dimensions.js';
import {
  parseEndpoint,
  parseStatisticQuery,
  pickLanguage,
  StatisticReject,
  type StatisticRequest,
} from '../model/statistic-request.js';
import {
  groupSeries,
  statValues,
  unitSeries,
  type StatGrouping,
  type StatValues,
  type TrafficUnit,
} from '../model/statistic.js';
import { visibleShare } from '../model/views.js';
import { findResource, type SimResource } from '../model/world.js';
import { pageOf, type PagingFault } from './paging.js';
import type { SimContext } from '../model/context.js';
import type { ApiRoute } from './types.js';
import { languageRoute } from './language-route.js';

/**
 * Traffic statistics v3 (spec 002, part A). Authentication (401s), the foreign-account check and the 5 calls/min quota
 * are done by the frame (server.ts, auth.ts); this module validates the query and serves data from model/statistic.ts.
 *
 * Not shown in the spec, chosen here:
 * - error texts: table A's Data column, with the parameter appended (`unknown parameter: foo`, `invalid value: limit`,
 *   `required key: start`, `required key: account` on /hosts); a method other than GET answers 405;
 * - groups are ordered by their key unless `sort` is given (stable while late data grows, so paging neither skips nor
 *   repeats); ties of a sort are broken by the key; groups without traffic and hits are left out;
 * - offset/limit on /times page through the buckets (no default limit there: the default is for groups); on
 *   /times/<g> they apply inside each bucket;
 * - times are echoed and bucket bounds shown in the request's `timezone` (UTC: `Z`), buckets clipped to [start, end);
 * - `account` is null in grouped and /times envelopes when it was not sent; totals echo only sent filters.
 */
export const statisticRoute: ApiRoute = languageRoute({
  api: 'statistic',
  language: (req) => pickLanguage(req.query, req.headers),
  endpoint: (path) => parseEndpoint(path) ?? new StatisticReject('unknown path'),
  request: (endpoint, req, ctx) => parseStatisticQuery(endpoint, req.query, ctx.settings),
  respond: (r, req, ctx, language) => respond(r, req.accounts, ctx, language, req.paging),
});

function respond(
  r: StatisticRequest,
  tokenAccounts: readonly string[],
  ctx: SimContext,
  language: Language,
  paging: PagingFault | undefined,
): Record<string, unknown> {
  const { grouping, times } = r.endpoint;
  const now = ctx.clock.now();
  const series = unitSeries(ctx.world, selectUnits(r, tokenAccounts, ctx), r.start, r.end, (t) =>
    visibleShare(t, now, ctx.settings.statisticLagMs),
  );
  const filters = dimensionFilters(r);
  const stat = statGrouping(grouping);
  const show = (ms: number) => DateTime.fromMillis(ms, { zone: r.timeZone }).toISO({ suppressMilliseconds: true })!;
  const grouped = groupSeries(ctx.world, series, filters, stat);
  const compute = (from: number, to: number) => statValues(grouped, from, to);
  const rowsOf = (values: Map<string, StatValues>) => rows(r, grouping!, values, ctx, language, paging);
  const echoed = Object.fromEntries(Object.entries(r.filters).map(([key, value]) => [key, echoOf(key, value)]));
  const envelope = { start: show(r.start), end: show(r.end), account: null, ...echoed };
  if (!times) {
    const values = compute(r.start, r.end);
    if (!grouping) return { start: envelope.start, end: envelope.end, ...echoed, ...pick(r, values.get('total')) };
    return { ...envelope, result: rowsOf(values) };
  }
  let spans = bucketSpans(r.start, r.end, r.granularity!, r.timeZone);
  if (!grouping) spans = pageOf(spans, r.offset, r.limitSent ? r.limit : Infinity, paging);
  const buckets = spans.map(({ from, to }) => {
    const values = compute(from, to);
    const span = { start: show(from), end: show(to) };
    return grouping ? { ...span, result: rowsOf(values) } : { ...span, ...pick(r, values.get('total')) };
  });
  return {
    ...envelope,
    granularity: r.granularity!.text,
    ...(r.timeZone !== 'UTC' ? { timezone: r.timeZone } : {}),
    result: buckets,
  };
}

/** Resources the filters select, one unit each, keyed by what /resources, /hosts and /accounts group by. */
function selectUnits(r: StatisticRequest, tokenAccounts: readonly string[], ctx: SimContext): TrafficUnit[] {
  const f = r.filters;
  const accounts = f.account !== undefined ? [f.account] : tokenAccounts;
  const matches = (res: SimResource) =>
    (f.resource === undefined || res.id === f.resource) &&
    (f.host === undefined || res.cname === f.host) &&
    (f.service === undefined || res.service === f.service);
  const grouping = r.endpoint.grouping;
  const keyOf = (account: string, res: SimResource) =>
    grouping === 'resources' ? res.id : grouping === 'hosts' ? res.cname : account;
  return ctx.world.accounts
    .filter((a) => accounts.includes(a.name))
    .flatMap((a) =>
      a.resources.filter(matches).map((resource) => ({ key: keyOf(a.name, resource), account: a.name, resource })),
    );
}

/** A filter as echoed: integer keys (`code`) as numbers, as the spec's examples show them. */
function echoOf(key: string, value: string | undefined): string | number | undefined {
  return value !== undefined && STATISTIC_KEYS[key as StatisticKey].type === 'integer' ? Number(value) : value;
}

function dimensionFilters(r: StatisticRequest): DimensionFilters {
  return Object.fromEntries(DIMENSIONS.map((dimension) => [dimension, r.filters[dimension]]));
}

function statGrouping(grouping: StatisticGrouping | undefined): StatGrouping {
  if (!grouping) return { kind: 'total' };
  if (grouping in GROUPING_DIMENSION) return { kind: 'dimension', grouping: grouping as DimensionGrouping };
  return { kind: 'unit' };
}

function pick(r: StatisticRequest, v: StatValues | undefined): Record<string, number> {
  const values = v ?? { traffic: 0, hits: 0, cache_ratio: 0, bandwidth: 0 };
  return Object.fromEntries(r.fields.map((f) => [f, values[f]]));
}

function rowKeys(
  grouping: StatisticGrouping,
  key: string,
  ctx: SimContext,
  language: Language,
): Record<string, string | number> {
  if (grouping in GROUPING_DIMENSION) return dimensionRowKeys(grouping as DimensionGrouping, key, language);
  if (grouping === 'resources') {
    const res = findResource(ctx.world, key);
    return { resource: key, resource_name: res?.name ?? '' };
  }
  return { [grouping === 'hosts' ? 'host' : 'account']: key };
}

function rows(
  r: StatisticRequest,
  grouping: StatisticGrouping,
  values: Map<string, StatValues>,
  ctx: SimContext,
  language: Language,
  paging: PagingFault | undefined,
) {
  const list = [...values]
    .filter(([, v]) => v.traffic > 0 || v.hits > 0)
    .map(([key, v]) => ({ keys: rowKeys(grouping, key, ctx, language), values: v, key }));
  const sort = r.sort;
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  list.sort((a, b) => {
    const by = sort ? compare(sortValue(a, sort.key), sortValue(b, sort.key)) * (sort.descending ? -1 : 1) : 0;
    return by || compare(a.key, b.key);
  });
  return pageOf(list, r.offset, r.limit, paging).map((row) => ({ ...row.keys, ...pick(r, row.values) }));
}

function sortValue(row: { keys: Record<string, string | number>; values: StatValues }, key: string): string | number {
  return key in row.values ? row.values[key as keyof StatValues] : (row.keys[key] ?? '');
}
