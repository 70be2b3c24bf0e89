import { bucketSpans } from '../../spec/granularity.js';
import { streamstatGranularity, type StreamstatGrouping } from '../../spec/streamstat.js';
import { formatMinuteUtc } from '../../time.js';
import { visibleShare, viewsByGroup, type StreamRef, type ViewGrouping, type ViewValues } from '../model/views.js';
import { pageOf, type PagingFault } from './paging.js';
import type { SimContext } from '../model/context.js';
import type { ApiRoute } from './types.js';
import { languageRoute } from './language-route.js';
import {
  parsePath,
  parseStreamstatQuery,
  pickLanguage,
  StreamstatReject,
  type StreamstatRequest,
} from './streamstat-request.js';

/**
 * Stream view statistics v2 (spec 002, part B). Authentication, the `account` check and the 30 calls/min quota are
 * done by the frame (server.ts, auth.ts); this module validates the query and serves data from model/views.ts.
 *
 * Not shown in the spec, chosen here:
 * - an unknown path below the prefix answers 404 `unknown path` (table B has no such row; a separate service most
 *   plausibly answers its framework's 404), a method other than GET 405;
 * - groups without views have no element; elements are ordered by their key unless `sort` is given (stable under
 *   growing late data, so paging does not skip or repeat); ties of a sort are broken by the key;
 * - with `granularity`, `result` holds one element per bucket (clipped to [start, end)), and sort/offset/limit
 *   apply to each bucket's elements (like statistic v3 /times/<group>); with `streamstatShape: 'flat'` granularity
 *   is checked, echoed and otherwise ignored (the flat shape for the whole window);
 * - `account` in the response is the account filter, or null when none was sent.
 */
export const streamstatRoute: ApiRoute = languageRoute({
  api: 'streamstat',
  language: (req) => pickLanguage(req.query, req.headers),
  endpoint: (path) => parsePath(path) ?? new StreamstatReject(404, 'unknown path'),
  request: (endpoint, req, ctx) => parseStreamstatQuery(endpoint, req.query, ctx.settings),
  respond: (r, req, ctx) => respond(r, req.accounts, ctx, req.paging),
});

function respond(
  r: StreamstatRequest,
  tokenAccounts: readonly string[],
  ctx: SimContext,
  paging: PagingFault | undefined,
): Record<string, unknown> {
  const streams = selectStreams(r, tokenAccounts, ctx);
  const now = ctx.clock.now();
  const visible = (minuteMs: number) => visibleShare(minuteMs, now, ctx.settings.streamstatLagMs);
  const compute = (from: number, to: number) =>
    viewsByGroup(ctx.world, { streams, filters: r.filters, grouping: viewGrouping(r.endpoint), from, to, visible });
  const envelope: Record<string, unknown> = {
    start: formatMinuteUtc(r.start),
    end: formatMinuteUtc(r.end),
    fields: r.fields,
    account: r.account ?? null,
    ...(r.granularity ? { granularity: r.granularity } : {}),
    ...(r.limit !== undefined ? { limit: r.limit } : {}),
    ...(r.sort ? { sort: r.sort.raw } : {}),
  };
  if (!r.granularity || ctx.settings.streamstatShape === 'flat') {
    const groups = compute(r.start, r.end);
    return r.endpoint === 'total'
      ? { ...envelope, ...totalValues(r, groups) }
      : { ...envelope, result: elements(r, groups, ctx, paging) };
  }
  const buckets = bucketSpans(r.start, r.end, streamstatGranularity(r.granularity)).map(({ from, to }) => {
    const groups = compute(from, to);
    const span = { start: formatMinuteUtc(from), end: formatMinuteUtc(to) };
    return r.endpoint === 'total'
      ? { ...span, ...totalValues(r, groups) }
      : { ...span, result: elements(r, groups, ctx, paging) };
  });
  return { ...envelope, result: buckets };
}

/** Only the token's accounts (the frame already rejected a foreign `account`); a stream the account lacks → nothing. */
function selectStreams(r: StreamstatRequest, tokenAccounts: readonly string[], ctx: SimContext): StreamRef[] {
  const accounts = r.account !== undefined ? [r.account] : tokenAccounts;
  return ctx.world.accounts
    .filter((a) => accounts.includes(a.name))
    .flatMap((a) => a.streams.map((stream) => ({ account: a.name, stream })))
    .filter((ref) => r.streams.length === 0 || r.streams.includes(ref.stream.name))
    .filter((ref) => r.streamTypes.length === 0 || r.streamTypes.includes(ref.stream.type));
}

/** Group keys encode the element's result keys, so elements can be rebuilt from them. */
function viewGrouping(endpoint: StreamstatRequest['endpoint']): ViewGrouping {
  switch (endpoint) {
    case 'total':
      return { kind: 'total' };
    case 'streams':
      return { kind: 'stream', key: (ref) => JSON.stringify([ref.stream.name, ref.account]) };
    case 'accounts':
      return { kind: 'stream', key: (ref) => ref.account };
    case 'stream-types':
      return { kind: 'stream', key: (ref) => ref.stream.type };
    case 'browsers':
      return { kind: 'split', dimension: 'browser' };
    case 'platforms':
      return { kind: 'split', dimension: 'platform' };
  }
}

function resultKeys(grouping: StreamstatGrouping, key: string): Record<string, string> {
  switch (grouping) {
    case 'streams': {
      const [stream, account] = JSON.parse(key) as [string, string];
      return { stream, account };
    }
    case 'accounts':
      return { account: key };
    case 'stream-types':
      return { stream_type: key };
    case 'browsers':
      return { browser: key };
    case 'platforms':
      return { platform: key };
  }
}

function pick(r: StreamstatRequest, v: ViewValues): Record<string, number> {
  return Object.fromEntries(r.fields.map((f) => [f, v[f]]));
}

function totalValues(r: StreamstatRequest, groups: Map<string, ViewValues>): Record<string, number> {
  return pick(r, groups.get('total') ?? { views: 0, users: 0, views_max: 0 });
}

function elements(
  r: StreamstatRequest,
  groups: Map<string, ViewValues>,
  ctx: SimContext,
  paging: PagingFault | undefined,
): Array<Record<string, unknown>> {
  const grouping = r.endpoint as StreamstatGrouping;
  const rows = [...groups].filter(([, v]) => v.views > 0);
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sort = r.sort;
  rows.sort(([ka, va], [kb, vb]) => {
    const byValue = sort ? (va[sort.field] - vb[sort.field]) * (sort.descending ? -1 : 1) : 0;
    return byValue || byKey(ka, kb);
  });
  const limit = r.limit ?? ctx.settings.defaultLimit;
  return pageOf(rows, r.offset, limit, paging).map(([key, v]) => ({ ...resultKeys(grouping, key), ...pick(r, v) }));
}
