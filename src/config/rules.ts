import { ParameterError } from '../errors.js';
import { type CommonSettings, SOURCES, type Source } from '../sources/index.js';
import { reason, unique } from '../sources/common/settings.js';
import { MINUTE } from '../time.js';
import { ConfigError, type ConfigProblem } from './loader.js';
import { checkStateDir } from './paths.js';
import type { CollectorConfig } from './schema.js';

/**
 * Rules beyond the schema's shapes. Each source checks its own section (src/sources/<api>/settings.ts); the rules
 * here span sources. Each failure names the config field, so `run`, `backfill` and `demo` exit 2 before any call;
 * every rule runs, and all failures are reported at once.
 */
export function checkConfig(config: CollectorConfig): void {
  const problems: ConfigProblem[] = [];
  const rule = (check: () => void, prefix = '') => problems.push(...problemsOf(check, prefix));
  const { jobs } = config;
  problems.push(...settingsProblems(SOURCES, jobs));
  const jobsValid = problems.length === 0;
  const { accounts } = config;
  if (accounts !== 'auto') rule(() => unique('accounts', accounts));

  // A horizon shorter than a job's delay plus one window ends before the newest collectable window: nothing is
  // ever collected, silently. (Only judged on valid job settings: a job's reach is computed from them.)
  if (jobsValid) {
    const reach = SOURCES.map(({ name, settings }) => [`jobs.${name}`, settings.reachMs(jobs[name])] as const);
    const short = reach.find(([, ms]) => ms !== undefined && config.state.horizon < ms);
    if (short) {
      const [job, ms] = short;
      problems.push({
        field: 'state.horizon',
        message: `must be at least ${ms! / MINUTE} min (${job}: lag/delay plus one window), or nothing is collected`,
      });
    }
  }
  rule(() => checkStateDir(config.state.dir));
  rule(() => checkOverwrites(config));
  if (problems.length > 0) throw new ConfigError(problems);
}

/**
 * What each source of `list` finds wrong in its own section of `jobs` (src/sources/<api>/settings.ts), each problem
 * named by its whole path; the loader runs it on the real list, a test on a list it composed.
 */
export function settingsProblems(list: readonly Pick<Source, 'name' | 'settings'>[], jobs: object): ConfigProblem[] {
  const sections = jobs as Record<string, CommonSettings>;
  return list.flatMap((s) => problemsOf(() => s.settings.check(sections[s.name]!), `jobs.${s.name}.`));
}

/**
 * A database that keeps every sample of a series and time (VictoriaMetrics, `output.overwrites: false`) stores a
 * provisional value next to its final one, and sums them. Re-collecting equal values is safe there only with its
 * dedup flag (docs/deploy.md); DVR ranges, rewritten at each snapshot, are then not written (src/sources/registry.ts).
 */
function checkOverwrites(config: CollectorConfig): void {
  if (config.output.overwrites === false && config.jobs.statistic.provisional) {
    throw new ConfigError(
      'jobs.statistic.provisional',
      'must be false with output.overwrites: false: the database would keep the provisional value next to the final ' +
        'one',
    );
  }
}

/**
 * The problems `check` finds: its ConfigError's, or its ParameterError naming a field inside `prefix` (the whole
 * path then); none when it passes. Anything else is no config problem and is thrown.
 */
function problemsOf(check: () => void, prefix: string): ConfigProblem[] {
  try {
    check();
    return [];
  } catch (err) {
    if (err instanceof ParameterError) return [{ field: `${prefix}${err.parameter}`, message: reason(err) }];
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}
