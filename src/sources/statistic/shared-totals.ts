import type { ServerPaging } from '../../paging/server-paging.js';
import type { Point } from '../../points.js';
import { largestBucket, pageParams, walkPages } from '../../paging/walk.js';
import type { Span, SpanCalls } from '../common/types.js';
import type { StatisticClient } from './client.js';
import { timesGroupedToPoints } from './points.js';
import { type AccountStanding, isAccountRefusal, refusalReason } from '../common/account-standing.js';

/** The checkpoint key of an account's totals: the same for its own `/times` job and for the shared job. */
export const totalsKey = (account: string): string => `statistic/${account}/total`;

/** The key of the job that reads every member's totals through `/times/accounts`. */
export const SHARED_TOTALS_KEY = 'statistic/*/total';

/**
 * Calls one span of `/times/accounts` takes: a page per `limit` accounts (the limit applies to the accounts of each
 * bucket: the page size, lowered for a wide span by the row budget, see bucketLimit), so one call for up to `limit`
 * accounts. The read stops once every bucket listed every member; an idle member (no row in a bucket) costs the page
 * that checks the last one (walkPages), and a token with more accounts than a page holds can add pages.
 */
export function sharedTotalsCalls(members: number, limit: number, lastCalls?: number): SpanCalls {
  const pages = Math.max(1, Math.ceil(members / limit));
  // The calls of the last read (paging's memory): whether its members fill every bucket or one idles (the check page).
  if (lastCalls !== undefined) {
    const calls = Math.max(pages, Math.min(lastCalls, pages + 1));
    return { least: calls, most: calls, paged: true };
  }
  return { least: pages, most: pages + 1, paged: true };
}

/**
 * One span of `/times/accounts` (spec A2: the accounts grouping, no account filter: every account of the token), as
 * cdn_traffic points of the `members` only; the accounts grouping's rows are the same points as each account's
 * `/times` (same series and time), so the shared read and a single-account read never make two series.
 * Unlike `/times?account=…`, a member without traffic in a bucket has no row there, so no zero point is written; and
 * a configured account the token cannot read is simply absent (no 401 names it): its buckets stay empty.
 */
export async function readSharedTotals(
  paging: ServerPaging,
  client: StatisticClient,
  members: ReadonlySet<string>,
  q: SharedQuery,
  limit: number,
): Promise<SharedRead> {
  const points: Point[] = [];
  const seen = new Map<string, Set<string>>();
  let calls = 0;
  const read = {
    api: 'statistic' as const,
    endpoint: '/times/accounts',
    fetchPage: async (offset: number, limit: number) => {
      calls++;
      return (await client.timesGrouped('accounts', { ...q, ...pageParams(offset, limit) })).body;
    },
    rows: largestBucket,
  };
  for await (const page of walkPages(paging, read, 0, limit)) {
    for (const p of timesGroupedToPoints('accounts', page)) if (members.has(p.tags.account!)) points.push(p);
    for (const bucket of page.result) {
      const accounts = seen.get(bucket.start) ?? new Set<string>();
      for (const row of bucket.result)
        if (row.account !== undefined && members.has(row.account)) accounts.add(row.account);
      seen.set(bucket.start, accounts);
    }
    // Every member in every bucket: no member's row can be on a later page (each account is one row per bucket).
    if (page.result.length > 0 && [...seen.values()].every((s) => s.size === members.size)) break;
  }
  // Kept with the reads' rows (the read ends on its members, not on a page's rows): forecasts its next spans.
  paging.recordRows(SHARED_TOTALS_KEY, calls);
  const listed = new Set<string>();
  for (const accounts of seen.values()) for (const account of accounts) listed.add(account);
  return { points, listed };
}

/** A span of `/times/accounts`: its times and granularity. */
export interface SharedQuery {
  start: number;
  end: number;
  granularity: string;
}

/** The members' points of a span, and the members that had a row in it (the grouping lists only readable accounts). */
export interface SharedRead {
  points: Point[];
  listed: Set<string>;
}

/**
 * Where no inventory vouches for the accounts (404), a member without a row in a span may be idle or one the token
 * cannot read: the accounts grouping cannot tell. Its own `/times?account=…` can (the statistics API refuses it with
 * 401 `account`): one call of one row, once per account and runtime. An answer vouches for the account (its span
 * is confirmed with no point, as an idle member's is); a refusal is reported through the standing, and the account is
 * taken out of `members`, so its checkpoint is not confirmed.
 */
export async function proveIdleMembers(
  client: StatisticClient,
  members: Set<string>,
  read: SharedRead,
  q: SharedQuery,
  standing: AccountStanding,
): Promise<void> {
  for (const account of [...members]) {
    if (read.listed.has(account) || standing.isVouched(account)) continue;
    try {
      await client.times({ ...q, account, ...pageParams(0, 1) });
      standing.answered(account, 'statistic');
    } catch (err) {
      if (!isAccountRefusal(err)) throw err;
      standing.refused(account, 'statistic', refusalReason(err));
      members.delete(account);
    }
  }
}

/**
 * The members a span was read for, so that the collector confirms exactly those (an account may join meanwhile).
 * Bounded: a pass holds at most two spans between read and confirmation, and reads nobody confirms (the provisional
 * twin, a failed write) must not pile up.
 */
export class ReadFor {
  private readonly bySpan = new Map<string, string[]>();

  constructor(private readonly limit = 64) {}

  record(span: Span, members: ReadonlySet<string>): void {
    const id = `${span.from}/${span.to}`;
    this.bySpan.delete(id);
    this.bySpan.set(id, [...members]);
    for (const oldest of this.bySpan.keys()) {
      if (this.bySpan.size <= this.limit) break;
      this.bySpan.delete(oldest);
    }
  }

  take(span: Span): string[] {
    const id = `${span.from}/${span.to}`;
    const members = this.bySpan.get(id) ?? [];
    this.bySpan.delete(id);
    return members;
  }
}
