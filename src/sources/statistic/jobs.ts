import type { Requester } from '../../contracts/requester.js';
import { provisionalSpans, statisticRule, type WindowRule } from '../../plan/windows.js';
import type { Point } from '../../points.js';
import type { StatisticGrouping } from '../../spec/statistic.js';
import type { StatisticClientOptions } from './client.js';
import {
  collectPages,
  flatRows,
  forecastGroupedCalls,
  knownRowsCalls,
  largestBucket,
  pageParams,
} from '../../paging/walk.js';
import { ServerPaging } from '../../paging/server-paging.js';
import { bucketLimit, groupedSpanBuckets, rowsPerCall, spanForRows } from '../../paging/row-budget.js';
import type { CollectJob, JobContext, PointsHandOff, Span } from '../common/types.js';
import { StatisticClient } from './client.js';
import { timesGroupedToPoints, timesToPoints } from './points.js';
import {
  proveIdleMembers,
  ReadFor,
  readSharedTotals,
  SHARED_TOTALS_KEY,
  sharedTotalsCalls,
  totalsKey,
} from './shared-totals.js';
import { stepMs, type StatisticSettings } from './settings.js';

/** `accounts` is collected as `total`: its rows are each account's totals (the same cdn_traffic points). */
type Grouping = 'total' | Exclude<StatisticGrouping, 'accounts'>;

/** What one job reads: a grouping of an account, and for `paths` the host it is filtered by (the spec requires one). */
interface Target {
  account: string;
  grouping: Grouping;
  host?: string;
}

/** The final read of a job, before the provisional twin is derived from it. */
type FinalJob = Pick<CollectJob, 'key' | 'account' | 'rule' | 'callsFor' | 'collect' | 'sharedKeys'>;

/**
 * Traffic statistics: one job per account and grouping (per account and host for `paths`), read through the
 * `/times…` endpoints so one call covers a whole span of buckets (5 calls/min go a long way), and only once the
 * buckets are final (`lag` after they end). With `provisional`, a second job per target reads the closed but not yet
 * final buckets early; it keeps no checkpoint, and the final read later overwrites its points (same series and time).
 *
 * Totals of several accounts (two or more configured, or `accounts: auto`) are ONE job reading `/times/accounts`,
 * which carries every account's totals in one call, instead of one `/times?account=…` job each. It
 * keeps each account's checkpoint under the key the single-account job used (`statistic/<account>/total`), so
 * switching between the two neither leaves a gap nor reads twice what every account has; a window that only some
 * accounts have is read for all and rewrites the others' points with the same values. An account that joins (found
 * by discovery) has no checkpoint yet: the shared job reads its `initialLookback` like a new single-account job would.
 */
/** A context whose paging knowledge is settled (the runtime's, or one the jobs of one call share). */
type PagedContext = JobContext & { paging: ServerPaging };

export function statisticJobs(c: StatisticSettings, ctx: JobContext, members: Set<string> = new Set()): CollectJob[] {
  if (!c.enabled) return [];
  // The runtime's paging knowledge (the registry always gives one); jobs built by hand share their own.
  const withPaging: PagedContext = { ...ctx, paging: ctx.paging ?? new ServerPaging() };
  const step = stepMs(c);
  const groupings = [...new Set(c.groupings.map((g): Grouping => (g === 'accounts' ? 'total' : g)))];
  // With accounts: auto the job is made with the first accounts found; later ones join its member set.
  const shared =
    groupings.includes('total') && ctx.accounts.length > 0 && (ctx.accountsAuto === true || ctx.accounts.length >= 2);
  const finals: FinalJob[] = ctx.accounts.flatMap((account) =>
    targetsOf(c, groupings, account)
      .filter((t) => !(shared && t.grouping === 'total'))
      .map((target) => targetJob(c, withPaging, step, target)),
  );
  if (shared) finals.push(sharedTotalsJob(c, withPaging, step, members));
  return finals.flatMap((final) => withProvisional(c, final));
}

/**
 * Spans sized by the rows a call returns (row-budget.ts), `span` being a cap: `/times` pages the span's buckets
 * themselves, so a span is one page of buckets (one call, its rows known: no page to look for more); a grouped read's
 * rows are buckets × groups, so a span is as wide as the cap allows and its limit per bucket keeps the body in budget.
 */
function ruleFor(c: StatisticSettings, step: number, flat: boolean, ctx: JobContext): WindowRule {
  return statisticRule(
    step,
    c.lag,
    spanForRows(step, flat ? ctx.pageSize : groupedSpanBuckets(ctx.pageSize, budgetOf(ctx)), c.span),
  );
}

const budgetOf = (ctx: JobContext): number => ctx.rowBudget?.statistic ?? rowsPerCall();

function targetJob(c: StatisticSettings, ctx: PagedContext, step: number, target: Target): FinalJob {
  const { language, pageSize } = ctx;
  const keyParts = [target.account, target.grouping, ...(target.host === undefined ? [] : [target.host])];
  const key = `statistic/${keyParts.join('/')}`;
  const flat = target.grouping === 'total';
  return {
    key,
    account: target.account,
    rule: ruleFor(c, step, flat, ctx),
    callsFor: (span) => {
      const buckets = (span.to - span.from) / step;
      if (flat) return knownRowsCalls(buckets, pageSize);
      return forecastGroupedCalls(ctx.paging, 'statistic', key, bucketLimit(buckets, pageSize, budgetOf(ctx)));
    },
    collect: (span, http, handOff) => {
      const client = new StatisticClient(http, languageFor(target.grouping, language));
      const paging = { known: ctx.paging, pageSize, budget: budgetOf(ctx), handOff };
      return readSpan(client, target, { granularity: c.granularity, step, key }, span, paging);
    },
  };
}

/**
 * The job of every member's totals. Members live in the runtime's shared set (discovery adds to it; the collector
 * keeps the first job of this key), and each span confirms the accounts it was read for: never one an API refused
 * (the accounts grouping leaves such an account out without a word), and, where no inventory vouched for them, none
 * whose standing its own `/times` has not proven (proveIdleMembers).
 */
function sharedTotalsJob(c: StatisticSettings, ctx: PagedContext, step: number, members: Set<string>): FinalJob {
  for (const account of ctx.accounts) members.add(account);
  const standing = ctx.accountStanding;
  const readable = () => [...members].filter((account) => !standing?.isRefused(account));
  const readFor = new ReadFor();
  const client = (http: Requester) => new StatisticClient(http, languageFor('total', ctx.language));
  const limitFor = (span: Span) => bucketLimit((span.to - span.from) / step, ctx.pageSize, budgetOf(ctx));
  return {
    key: SHARED_TOTALS_KEY,
    rule: ruleFor(c, step, false, ctx),
    sharedKeys: (span?: Span) => (span ? readFor.take(span) : readable().sort()).map(totalsKey),
    callsFor: (span) => sharedTotalsCalls(readable().length, limitFor(span), ctx.paging?.rowsOf(SHARED_TOTALS_KEY)),
    collect: async (span, http) => {
      const asked = new Set(readable());
      const q = { start: span.from, end: span.to, granularity: c.granularity };
      const read = await readSharedTotals(ctx.paging, client(http), asked, q, limitFor(span));
      for (const account of read.listed) standing?.answered(account, 'statistic');
      if (standing?.inventory === 'absent') await proveIdleMembers(client(http), asked, read, q, standing);
      readFor.record(span, asked);
      return read.points;
    },
  };
}

function withProvisional(c: StatisticSettings, final: FinalJob): CollectJob[] {
  const rule = final.rule;
  const job: CollectJob = { ...final, api: 'statistic', checkpointed: true };
  if (!c.provisional) return [job];
  const { sharedKeys: _final, ...read } = job;
  const early: CollectJob = {
    ...read,
    key: final.key.replace(/^statistic\//, 'statistic-provisional/'),
    checkpointed: false,
    currentSpans: (now) => provisionalSpans(rule, now, c.lag),
  };
  return [job, early];
}

/**
 * `language` is sent only when configured, except where points carry names in it (country_name, region_name tags of
 * /regions and /countries): there it is always sent (en when unset), so a series never changes its tags with a
 * server's default or an Accept-Language added on the way.
 */
function languageFor(grouping: Grouping, language: JobContext['language']): StatisticClientOptions {
  const named = grouping === 'regions' || grouping === 'countries';
  const chosen = language ?? (named ? 'en' : undefined);
  return chosen === undefined ? {} : { language: chosen };
}

/** The account's targets: each grouping, `paths` once per host listed for the account (none if none). */
function targetsOf(c: StatisticSettings, groupings: readonly Grouping[], account: string): Target[] {
  return groupings.flatMap((grouping): Target[] =>
    grouping === 'paths'
      ? (c.paths.hosts[account] ?? []).map((host) => ({ account, grouping, host }))
      : [{ account, grouping }],
  );
}

/** How a span is paged: what paging learnt of the server, the page size, the row budget, where pages are handed. */
interface PagingOptions {
  known: ServerPaging;
  pageSize: number;
  budget: number;
  handOff: PointsHandOff | undefined;
}

function readSpan(
  client: StatisticClient,
  { account, grouping, host }: Target,
  { granularity, step, key }: { granularity: string; step: number; key: string },
  span: Span,
  { known, pageSize, budget, handOff }: PagingOptions,
): Promise<Point[]> {
  const q = { account, host, start: span.from, end: span.to, granularity };
  const buckets = (span.to - span.from) / step;
  if (grouping === 'total') {
    // offset/limit of /times page the buckets themselves: the span fixes how many there are.
    return collectPages(
      known,
      {
        api: 'statistic',
        endpoint: '/times',
        fetchPage: async (offset, limit) => (await client.times({ ...q, ...pageParams(offset, limit) })).body,
        toPoints: (body) => timesToPoints(body, { account }),
        rows: flatRows,
        knownRows: buckets,
      },
      pageSize,
    );
  }
  return collectPages(
    known,
    {
      api: 'statistic',
      endpoint: `/times/${grouping}`,
      fetchPage: async (offset, limit) =>
        (await client.timesGrouped(grouping, { ...q, ...pageParams(offset, limit) })).body,
      toPoints: (body) => timesGroupedToPoints(grouping, body, { account }),
      rows: largestBucket,
      key,
    },
    bucketLimit(buckets, pageSize, budget),
    handOff,
  );
}
