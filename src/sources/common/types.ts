import type { AccountStanding } from './account-standing.js';
import type { ServerPaging } from '../../paging/server-paging.js';
import type { ApiName } from '../../spec/apis.js';

export type { Span } from '../../spans.js';
export type { CollectJob, PointsHandOff, SpanCalls } from '../../contracts/job.js';

/** What every source's jobs share: the accounts this instance collects, the language and the page size. */
export interface JobContext {
  accounts: readonly string[];
  /** Sent only when set (or where points carry names; see the statistic jobs). */
  language?: 'en' | 'ru' | undefined;
  /** `limit` of paged reads (api.pageSize). */
  pageSize: number;
  /** What paging learnt of the server (the HttpClient's): the planner forecasts paged reads from it. */
  paging?: ServerPaging;
  /** Rows one answer of the API may carry inside its body cap (row-budget.ts; default: the 32 MiB cap's). */
  rowBudget?: Partial<Record<ApiName, number>>;
  /** Which accounts the inventory listed or an API refused, for the whole runtime (a job of several asks it). */
  accountStanding?: AccountStanding;
  /** `accounts: auto`: more accounts may join (the statistic totals are then read for all in one call). */
  accountsAuto?: boolean;
  /** `output.overwrites`: false where the database keeps every sample (points rewritten with new values are not). */
  overwrites?: boolean | undefined;
  /** Config `quotas`: DVR streams take turns when they need more snapshots than the DVR quota allows. */
  quotas?: { dvr?: { calls: number; period: number } } | undefined;
}
