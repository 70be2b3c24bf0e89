import type { ServerPaging } from '../http/server-paging.js';
import type { Logger } from '../log.js';
import { DvrRecordingStore } from '../state/dvr-recordings.js';
import { dvrJobs } from './dvr/jobs.js';
import type { DvrSettings } from './dvr/settings.js';
import { metricsJobs } from './metrics/jobs.js';
import type { MetricsSettings } from './metrics/settings.js';
import { statisticJobs } from './statistic/jobs.js';
import type { StatisticSettings } from './statistic/settings.js';
import { streamstatJobs } from './streamstat/jobs.js';
import type { StreamstatSettings } from './streamstat/settings.js';
import { StreamstatShape } from './streamstat/shape.js';
import type { CollectJob, JobContext } from './types.js';
import { rowBudgets } from './row-budget.js';
import type { ApiName } from '../spec/apis.js';

/** What the sources read of the collector's configuration: their own sections, the accounts, language and page size. */
export interface SourcesConfig {
  /** `auto`: discovered at run time (src/collector/discovery.ts), which adds their jobs through accountJobs. */
  accounts: readonly string[] | 'auto';
  api: { language?: JobContext['language']; pageSize: number; serverMaxLimit?: number; maxBodyBytes?: number; maxBodyBytesPerApi?: Partial<Record<ApiName, number | undefined>> };
  jobs: { metrics: MetricsSettings; statistic: StatisticSettings; streamstat: StreamstatSettings; dvr: DvrSettings };
  /** `overwrites: false`: the database keeps every sample of a series and time, so points rewritten with new values are not written. */
  output?: { overwrites?: boolean };
  /** Per API quota (config `quotas`): DVR streams take turns when they need more snapshots than it allows. */
  quotas?: { dvr?: { calls: number; period: number } };
}

/** What the jobs of one runtime learn of the service and share (at start and as accounts are discovered). */
export interface SourcesLearnt {
  streamstatShape: StreamstatShape;
  /** DVR recordings' identities across snapshots (and restarts, with a state dir). */
  dvrRecordings: DvrRecordingStore;
  /** Members of the shared statistic totals job: the accounts found so far join it (see statistic/jobs.ts). */
  statisticAccounts: Set<string>;
  /** What paging learnt of the server (the runtime's HttpClient): paged reads are planned from it. */
  paging?: ServerPaging;
}

/** Fresh knowledge; what is learnt is logged once (at warn: the service behaves unlike the spec's reading). */
export function sourcesLearnt(log?: Logger, stateDir?: string): SourcesLearnt {
  return {
    dvrRecordings: new DvrRecordingStore({
      dir: stateDir,
      onProblem: (problem) => log?.warn({ problem }, 'DVR recording identities lost: recordings cut by the DVR window get a new row'),
    }),
    streamstatShape: new StreamstatShape((granularity) =>
      log?.warn({ granularity }, `stream view statistics answer without buckets: reading one call per ${granularity} bucket`),
    ),
    statisticAccounts: new Set(),
  };
}

/** Every source, explicitly: adding an API is one folder and one line here. */
export function buildJobs(config: SourcesConfig, learnt: SourcesLearnt = sourcesLearnt()): CollectJob[] {
  return [...accountJobs(config, config.accounts === 'auto' ? [] : config.accounts, learnt), ...dvrJobs(config.jobs.dvr, { recordings: learnt.dvrRecordings, ranges: config.output?.overwrites !== false, quota: config.quotas?.dvr })];
}

/** The jobs of some accounts (DVR's streams are listed apart, with their accounts): at start, or once discovered. */
export function accountJobs(config: SourcesConfig, accounts: readonly string[], learnt: SourcesLearnt = sourcesLearnt()): CollectJob[] {
  const context: JobContext = {
    accounts,
    language: config.api.language,
    // Spans and row budgets are sized by the limit actually sent: never above the server's stated cap.
    pageSize: Math.min(config.api.pageSize, config.api.serverMaxLimit ?? Infinity),
    rowBudget: rowBudgets(config.api),
    accountsAuto: config.accounts === 'auto',
    ...learnt,
  };
  const { jobs } = config;
  return [...metricsJobs(jobs.metrics, context), ...statisticJobs(jobs.statistic, context), ...streamstatJobs(jobs.streamstat, context)];
}
