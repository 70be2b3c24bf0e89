import { ServerPaging } from '../paging/server-paging.js';
import type { AccountStanding } from './common/account-standing.js';
import type { Logger } from '../log.js';
import type { ApiName } from '../spec/apis.js';
import { SOURCES, type Source, type SourcesSettings } from './index.js';
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

/** A config whose `jobs` section holds one section per source of a registry's list, by the source's name. */
export type ListConfig = Omit<SourcesConfig, 'jobs'> & { jobs: object };

/**
 * The collector's side of a list of sources: their knowledge and their jobs. The runtime, the CLI and the checks use
 * the registry of the real list (the functions below); a test composes its own list (test/sources/fifth-source).
 */
// biome-ignore lint/suspicious/noExplicitAny: each source's own settings type is erased here on purpose
export function sourceRegistry(list: readonly Source<ApiName, any, any>[]) {
  const section = (config: ListConfig, name: ApiName): unknown => (config.jobs as Record<string, unknown>)[name];

  /** Fresh knowledge of every source; what is learnt is logged once (at warn: the service behaves unlike the spec). */
  function learnt(log?: Logger, stateDir?: string): SourcesLearnt {
    const env = { log, stateDir };
    return { own: Object.fromEntries(list.flatMap((s) => (s.learns ? [[s.name, s.learns(env)]] : []))) };
  }

  /** The jobs of some accounts (DVR's streams are listed apart, with their accounts): at start, or once discovered. */
  function ofAccounts(config: ListConfig, accounts: readonly string[], known = learnt()): CollectJob[] {
    const context = jobContext(config, accounts, known);
    return list
      .filter((s) => s.jobsPer === 'accounts')
      .flatMap((s) => s.jobs(section(config, s.name), context, known.own[s.name]));
  }

  /** The jobs of every source: of the configured accounts, and those its settings name. */
  function build(config: ListConfig, known = learnt()): CollectJob[] {
    const own = jobContext(config, [], known);
    const bySettings = list
      .filter((s) => s.jobsPer === 'settings')
      .flatMap((s) => s.jobs(section(config, s.name), own, known.own[s.name]));
    return [...ofAccounts(config, config.accounts === 'auto' ? [] : config.accounts, known), ...bySettings];
  }

  /**
   * The jobs a daemon of `config` runs once it found `discovered` (`accounts: auto`; ignored otherwise), by key, as its
   * collector keeps them: the jobs of the start, then those of the accounts found (a key already there is not added).
   */
  function ofDaemon(config: ListConfig, discovered: readonly string[] = []): CollectJob[] {
    const known = learnt();
    const found = config.accounts === 'auto' ? ofAccounts(config, discovered, known) : [];
    const byKey = new Map<string, CollectJob>();
    for (const job of [...build(config, known), ...found]) if (!byKey.has(job.key)) byKey.set(job.key, job);
    return [...byKey.values()];
  }

  return { sources: list, sourcesLearnt: learnt, buildJobs: build, accountJobs: ofAccounts, daemonJobs: ofDaemon };
}

const REGISTRY = sourceRegistry(SOURCES);

/** Fresh knowledge of every source of src/sources/index.ts. */
export function sourcesLearnt(log?: Logger, stateDir?: string): SourcesLearnt {
  return REGISTRY.sourcesLearnt(log, stateDir);
}

/** The jobs of every source (src/sources/index.ts): of the configured accounts, and those its settings name. */
export function buildJobs(config: SourcesConfig, learnt: SourcesLearnt = sourcesLearnt()): CollectJob[] {
  return REGISTRY.buildJobs(config, learnt);
}

/** The jobs a daemon of `config` runs once it found `discovered` (see sourceRegistry). */
export function daemonJobs(config: SourcesConfig, discovered: readonly string[] = []): CollectJob[] {
  return REGISTRY.daemonJobs(config, discovered);
}

/** The jobs of some accounts: at start, or once discovered. */
export function accountJobs(
  config: SourcesConfig,
  accounts: readonly string[],
  learnt: SourcesLearnt = sourcesLearnt(),
): CollectJob[] {
  return REGISTRY.accountJobs(config, accounts, learnt);
}

function jobContext(config: ListConfig, accounts: readonly string[], learnt: SourcesLearnt): JobContext {
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
