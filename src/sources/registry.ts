import { dvrJobs } from './dvr/jobs.js';
import type { DvrSettings } from './dvr/settings.js';
import { metricsJobs } from './metrics/jobs.js';
import type { MetricsSettings } from './metrics/settings.js';
import { statisticJobs } from './statistic/jobs.js';
import type { StatisticSettings } from './statistic/settings.js';
import { streamstatJobs } from './streamstat/jobs.js';
import type { StreamstatSettings } from './streamstat/settings.js';
import type { CollectJob, JobContext } from './types.js';

/** What the sources read of the collector's configuration: their own sections, the accounts, language and page size. */
export interface SourcesConfig {
  /** `auto`: discovered at run time (src/collector/discovery.ts), which adds their jobs through accountJobs. */
  accounts: readonly string[] | 'auto';
  api: { language?: JobContext['language']; pageSize: number };
  jobs: { metrics: MetricsSettings; statistic: StatisticSettings; streamstat: StreamstatSettings; dvr: DvrSettings };
}

/** Every source, explicitly: adding an API is one folder and one line here. */
export function buildJobs(config: SourcesConfig): CollectJob[] {
  return [...accountJobs(config, config.accounts === 'auto' ? [] : config.accounts), ...dvrJobs(config.jobs.dvr)];
}

/** The jobs of some accounts (DVR's streams are listed apart, with their accounts): at start, or once discovered. */
export function accountJobs(config: SourcesConfig, accounts: readonly string[]): CollectJob[] {
  const context: JobContext = { accounts, language: config.api.language, pageSize: config.api.pageSize };
  const { jobs } = config;
  return [...metricsJobs(jobs.metrics, context), ...statisticJobs(jobs.statistic, context), ...streamstatJobs(jobs.streamstat, context)];
}
