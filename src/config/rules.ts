import { validate as validCron } from 'node-cron';
import { ParameterError } from '../errors.js';
import { metricsRule, statisticRule, streamstatRule } from '../plan/windows.js';
import { dvrStreamPath } from '../sources/dvr/path.js';
import { fixedLengthMs, parseGranularity } from '../spec/granularity.js';
import { isMetricName } from '../spec/metrics.js';
import { streamstatGranularity } from '../spec/streamstat.js';
import { MINUTE } from '../time.js';
import { ConfigError } from './loader.js';
import { checkStateDir } from './paths.js';
import type { CollectorConfig } from './schema.js';

/**
 * Rules that span several fields or need the APIs' grammars (the schema checks shapes). Each failure names the
 * config field, so `run`, `backfill` and `demo` exit 2 before any call.
 */
export function checkConfig(config: CollectorConfig): void {
  const { metrics, statistic, streamstat, dvr } = config.jobs;
  at('jobs.metrics.window', () => metricsRule(metrics.window / MINUTE, metrics.delay));
  metrics.metrics.forEach((name, i) => {
    if (!isMetricName(name)) throw new ConfigError(`jobs.metrics.metrics.${i}`, `unknown metric "${name}"`);
  });

  const g = parseGranularity(statistic.granularity);
  const gMs = g && fixedLengthMs(g);
  if (gMs === undefined) {
    throw new ConfigError('jobs.statistic.granularity', `"${statistic.granularity}" must be a fixed-length ISO 8601 duration with one component (e.g. PT5M, PT1H, P1D)`);
  }
  at('jobs.statistic.granularity', () => statisticRule(gMs, statistic.lag, gMs));
  at('jobs.statistic.span', () => statisticRule(gMs, statistic.lag, statistic.span));
  at('jobs.streamstat.span', () => streamstatRule(fixedLengthMs(streamstatGranularity(streamstat.granularity))!, streamstat.lag, streamstat.span));

  for (const api of ['metrics', 'statistic', 'streamstat', 'dvr'] as const) {
    const expression = config.jobs[api].schedule;
    if (!validCron(expression)) throw new ConfigError(`jobs.${api}.schedule`, `"${expression}" is not a cron expression`);
  }
  if (dvr.enabled && dvr.interval % 1000 !== 0) throw new ConfigError('jobs.dvr.interval', 'must be whole seconds');
  // The path rules the DVR client applies to every call (no `..`, no empty segment), checked before the first one.
  dvr.streams.forEach((s, i) => at(`jobs.dvr.streams.${i}`, () => dvrStreamPath(s.account, s.stream)));

  unique('accounts', config.accounts);
  unique('jobs.metrics.metrics', metrics.metrics);
  unique('jobs.statistic.groupings', statistic.groupings);
  unique('jobs.streamstat.groupings', streamstat.groupings);
  unique('jobs.dvr.streams', dvr.streams.map((s) => `${s.account} ${s.stream}`));

  // A horizon shorter than a job's delay plus one window ends before the newest collectable window: nothing is
  // ever collected, silently.
  const reach: Array<[string, boolean, number]> = [
    ['jobs.metrics', metrics.enabled, metrics.delay + metrics.window],
    ['jobs.statistic', statistic.enabled, statistic.lag + gMs],
    ['jobs.streamstat', streamstat.enabled, streamstat.lag + fixedLengthMs(streamstatGranularity(streamstat.granularity))!],
  ];
  for (const [job, enabled, ms] of reach) {
    if (enabled && config.state.horizon < ms) {
      throw new ConfigError('state.horizon', `must be at least ${ms / MINUTE} min (${job}: lag/delay plus one window), or nothing is collected`);
    }
  }
  checkStateDir(config.state.dir);
}

/** Duplicates would collect (and count against the quota) twice; `accounts` also feeds sharding. */
function unique(field: string, values: readonly string[]): void {
  const seen = new Set<string>();
  values.forEach((value, i) => {
    if (seen.has(value)) throw new ConfigError(`${field}.${i}`, `duplicate "${value}"`);
    seen.add(value);
  });
}

function at(field: string, check: () => unknown): void {
  try {
    check();
  } catch (err) {
    if (err instanceof ParameterError) throw new ConfigError(field, err.message.replace(/^[^:]*: /, ''));
    throw err;
  }
}
