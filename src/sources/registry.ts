import { ServerPaging } from '../paging/server-paging.js';
import type { AccountStanding } from './common/account-standing.js';
import type { Logger } from '../log.js';
import type { ApiName } from '../spec/apis.js';
import { SOURCES, type SourcesSettings } from './index.js';
import { rowBudgets } from '../paging/row-budget.js';
import type { CollectJob, JobContext } from './common/types.js';

/** What the sources read of the collector's configuration: their own sections, the accounts, language and page size. */
export interface SourcesConfig {
  /** `auto`: discovered at run time (src/collector/discovery.ts), which adds their jobs through accountJobs. */
  accounts: readonly string[] | 'auto';
  api: {
    language?: JobContext['language'];
    pageSize: number;
    maxPages?: number;
    serverMaxLimit?: number;
    maxBodyBytes?: number;
    maxBodyBytesPerApi?: Partial<Record<ApiName, number | undefined>>;
  };
  jobs: SourcesSettings;
  /** `overwrites: false`: the database keeps every sample of a series and time, so points rewritten with new values are
   * not written. */
  output?: { overwrites?: boolean };
  /** Per API quota (config `quotas`): DVR streams take turns when they need more snapshots than it allows. */
  quotas?: { dvr?: { calls: number; period: number } };
}

/**
 * What the jobs of one runtime learn of the service and share (at start and as accounts are discovered): each
 * source's own knowledge, made by the source (`Source.learns`) and opaque here, and what all of them read.
 */
export interface SourcesLearnt {
  /** Per source, what its `learns` made (its private state: answer shapes, recordings' identities, members…). */
  own: Partial<Record<ApiName, unknown>>;
  /** What paging learnt of the server (the runtime's): paged reads are planned from it. */
  paging?: ServerPaging;
  /** Which accounts the inventory listed or an API refused (the runtime's: it reports each change). */
  accountStanding?: AccountStanding;
}

/** Fresh knowledge of every source; what is learnt is logged once (at warn: the service behaves unlike the spec). */
export function sourcesLearnt(log?: Logger, stateDir?: string): SourcesLearnt {
  const env = { log, stateDir };
  return { own: Object.fromEntries(SOURCES.flatMap((s) => (s.learns ? [[s.name, s.learns(env)]] : []))) };
}

/** The jobs of every source (src/sources/index.ts): of the configured accounts, and those its settings name. */
export function buildJobs(config: SourcesConfig, learnt: SourcesLearnt = sourcesLearnt()): CollectJob[] {
  const own = jobContext(config, [], learnt);
  const bySettings = SOURCES.filter((s) => s.jobsPer === 'settings').flatMap((s) =>
    s.jobs(config.jobs[s.name], own, learnt.own[s.name]),
  );
  return [...accountJobs(config, config.accounts === 'auto' ? [] : config.accounts, learnt), ...bySettings];
}

/**
 * The jobs a daemon of `config` runs once it found `discovered` (`accounts: auto`; ignored otherwise), by key, as its
 * collector keeps them: the jobs of the start, then those of the accounts found (a key already there is not added).
 */
export function daemonJobs(config: SourcesConfig, discovered: readonly string[] = []): CollectJob[] {
  const learnt = sourcesLearnt();
  const found = config.accounts === 'auto' ? accountJobs(config, discovered, learnt) : [];
  const byKey = new Map<string, CollectJob>();
  for (const job of [...buildJobs(config, learnt), ...found]) if (!byKey.has(job.key)) byKey.set(job.key, job);
  return [...byKey.values()];
}

/** The jobs of some accounts (DVR's streams are listed apart, with their accounts): at start, or once discovered. */
export function accountJobs(
  config: SourcesConfig,
  accounts: readonly string[],
  learnt: SourcesLearnt = sourcesLearnt(),
): CollectJob[] {
  const context = jobContext(config, accounts, learnt);
  return SOURCES.filter((s) => s.jobsPer === 'accounts').flatMap((s) =>
    s.jobs(config.jobs[s.name], context, learnt.own[s.name]),
  );
}

function jobContext(config: SourcesConfig, accounts: readonly string[], learnt: SourcesLearnt): JobContext {
  return {
    accounts,
    language: config.api.language,
    // Spans and row budgets are sized by the limit actually sent: never above the server's stated cap.
    pageSize: Math.min(config.api.pageSize, config.api.serverMaxLimit ?? Infinity),
    rowBudget: rowBudgets(config.api),
    accountsAuto: config.accounts === 'auto',
    overwrites: config.output?.overwrites,
    quotas: config.quotas,
    // Jobs built without the runtime's knowledge (checks, plans, tests) share a fresh one of this config.
    paging: learnt.paging ?? new ServerPaging(config.api.maxPages, config.api.serverMaxLimit),
    accountStanding: learnt.accountStanding,
  };
}
