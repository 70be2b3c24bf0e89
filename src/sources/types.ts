import type { AccountStanding } from './account-standing.js';
import type { ServerPaging } from '../paging/server-paging.js';
import type { ApiName } from '../spec/apis.js';
import type { DvrRecordingStore } from '../state/dvr-recordings.js';
import type { DvrTurnsRule } from './dvr/turns.js';
import type { StreamstatShape } from './streamstat/shape.js';
import type { MetricsPeriodLimit } from './metrics/window-limit.js';

export type { Span } from '../spans.js';
export type { CollectJob, PointsHandOff, SpanCalls } from '../contracts/job.js';

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
  /** The longest metrics period the service takes, learnt once for the whole runtime (default: one per job builder). */
  metricsPeriod?: MetricsPeriodLimit;
  /** `accounts: auto`: more accounts may join (the statistic totals are then read for all in one call). */
  accountsAuto?: boolean;
  /** The accounts whose statistic totals the shared `/times/accounts` job writes, kept for the whole runtime. */
  statisticAccounts?: Set<string>;
  /** Whether stream views answer in buckets, learnt once for the whole runtime (default: one per call of the job
   * builder). */
  streamstatShape?: StreamstatShape;
  /** DVR recordings' identities, shared by every stream of the runtime (default: a fresh memory per job builder). */
  dvrRecordings?: DvrRecordingStore;
  /** `output.overwrites`: false where the database keeps every sample (points rewritten with new values are not). */
  overwrites?: boolean | undefined;
  /** Config `quotas`: DVR streams take turns when they need more snapshots than the DVR quota allows. */
  quotas?: { dvr?: DvrTurnsRule['quota'] } | undefined;
}
