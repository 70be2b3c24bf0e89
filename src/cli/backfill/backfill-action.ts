import { systemClock, type Clock } from '../../clock.js';
import { executeBackfill } from '../../backfill/backfill.js';
import { DaemonGoneError, handOverBackfill } from '../../backfill/client.js';
import { planSummary } from '../../backfill/requests.js';
import { describeCuts } from '../../backfill/cuts.js';
import { OwnedRange, pendingIn, resumeCommand } from '../../backfill/owned-range.js';
import { BackfillEta } from '../../backfill/eta.js';
import { BackfillProgress } from './backfill-progress.js';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import { stopCollecting } from '../../app/stop.js';
import type { CollectorConfig } from '../../config/schema.js';
import { loadConfigFile } from '../../config/loader.js';
import { checkConfig } from '../../config/rules.js';
import type { Shard } from '../../config/shard.js';
import { errorCodeOf } from '../../errors.js';
import { readRetention, retentionWarning } from '../../sink/retention.js';
import { createLogger, type Logger } from '../../log.js';
import { noJobMatches, selects } from '../../plan/job-selection.js';
import { planBackfill } from '../../plan/planner.js';
import { buildJobs } from '../../sources/registry.js';
import type { ApiName } from '../../spec/apis.js';
import type { BackfillStatus } from '../../backfill/requests.js';
import { CliError, EXIT_USAGE } from '../common/common.js';
import { onInterrupt, type BackfillStop } from './backfill-stop.js';
import { finish } from './backfill-result.js';
import { applyShard } from '../common/apply-shard.js';
import { printPlan, quotasOf } from './backfill-plan.js';

// What `backfill` does, loaded only when it runs: its --help and argument errors load backfill.ts alone.

export interface BackfillOptions {
  config?: string;
  from: number;
  to?: number;
  jobs?: string[];
  dryRun?: boolean;
  json?: boolean;
  shard?: Shard;
  forceLogin?: boolean;
}

type Plan = BackfillStatus['plan'];

const iso = (ms: number) => new Date(ms).toISOString();

export async function backfillAction(o: BackfillOptions): Promise<void> {
  const clock = systemClock;
  const range = { from: o.from, to: o.to ?? clock.now() };
  if (range.from >= range.to) throw new CliError('--from must be before --to', EXIT_USAGE);
  const config = applyShard(loadConfigFile(o.config), o.shard);
  checkConfig(config);
  const log = createLogger(config.log);
  const resume = resumeCommand(o.config, range, o.jobs ?? []);
  const notes = describeCuts(
    buildJobs(config).filter((job) => selects(o.jobs ?? [], job)),
    range,
    clock.now(),
  );
  await warnOfRetention(config, range.from, clock.now());
  const stop = onInterrupt(resume);
  try {
    let rt: Runtime;
    try {
      rt = await createRuntime(config, clock, log, { shard: o.shard, forceLogin: o.forceLogin, checkAccounts: true });
    } catch (err) {
      if (errorCodeOf(err) !== 'CDN_ERR_STATE_LOCKED') throw err;
      return await besideDaemon(config, o, range, notes, stop, log, clock);
    }
    try {
      await standalone(rt, o, range, notes, stop, log);
    } finally {
      await rt.close();
    }
  } finally {
    stop.dispose();
  }
}

async function standalone(
  rt: Runtime,
  o: BackfillOptions,
  range: { from: number; to: number },
  notes: string[],
  stop: BackfillStop,
  log: Logger,
) {
  await rt.discovery?.refresh(); // accounts: auto: the jobs to plan are those of the token's accounts now
  const plan = planBackfill(rt.collector, range, o.jobs ?? []);
  if (plan.jobs.length === 0) throw new CliError(noJobMatches(o.jobs ?? [], rt.collector.jobs), EXIT_USAGE);
  const summary = planSummary(plan);
  if (o.dryRun) return printPlan(summary, range, rt.config, notes, o.json === true);
  const startedAt = rt.clock.now();
  const owned = await OwnedRange.start(
    rt.config.state.dir,
    { ...range, jobs: o.jobs ?? [], command: stop.resume },
    plan,
    rt.clock,
    (err) => log.warn({ err: String(err) }, 'backfill range not recorded'),
  );
  stop.onStop(() => void stopCollecting(rt));
  const progress = startProgress(summary, rt.config, rt.clock, startedAt, log);
  const callsBefore = apiCalls(rt);
  let first = true;
  const outcome = await executeBackfill(rt.collector, plan, {
    shouldStop: stop.requested,
    onSpan: (job, span) => {
      owned.spanDone();
      progress.spanDone(job.api, job.callsFor(span).least, first ? rt.clock.now() - startedAt : undefined);
      first = false;
    },
  });
  progress.stop();
  const callsAfter = apiCalls(rt);
  const calls = Object.fromEntries(
    Object.entries(callsAfter)
      .map(([api, n]) => [api, n - (callsBefore[api as ApiName] ?? 0)])
      .filter(([, n]) => (n as number) > 0),
  );
  const state = outcome.stopped
    ? 'cancelled'
    : outcome.failed.length > 0 || outcome.setAside > 0
      ? 'incomplete'
      : 'done';
  await owned.end(state, pendingIn(rt.collector));
  finish(
    {
      mode: 'standalone',
      state,
      from: iso(range.from),
      to: iso(range.to),
      spans: outcome.spans,
      plannedSpans: plan.spans,
      points: outcome.points,
      durationSec: (rt.clock.now() - startedAt) / 1000,
      calls,
      failed: outcome.failed,
      setAside: outcome.setAside,
      refused: outcome.refused,
      notes,
      ...(outcome.sinkFull === undefined ? {} : { sinkFull: outcome.sinkFull }),
    },
    o.json === true,
    stop,
    'the error lines above name the cause and the fix',
  );
}

async function besideDaemon(
  config: CollectorConfig,
  o: BackfillOptions,
  range: { from: number; to: number },
  notes: string[],
  stop: BackfillStop,
  log: Logger,
  clock: Clock,
) {
  if (!o.json) {
    const what = o.dryRun
      ? 'asking it for the plan (its jobs, its checkpoints; nothing is collected)'
      : 'handing the backfill to it (its quota, its checkpoints)';
    process.stderr.write(`a daemon holds ${config.state.dir}: ${what}\n`);
  }
  stop.onStop(() => process.stderr.write('asking the daemon to cancel the backfill: its calls waiting for quota go\n'));
  stop.leftOnQuit('the daemon was asked to cancel the backfill and ends it itself (`cdn-collector status` shows it)');
  const startedAt = clock.now();
  let progress: BackfillProgress | undefined;
  let eta: BackfillEta | undefined;
  const seen: Partial<Record<ApiName, number>> = {};
  const status = await followHandOver(
    stop,
    () => progress?.stop(),
    () =>
      handOverBackfill(
        config.state.dir,
        { from: range.from, to: range.to, jobs: o.jobs ?? [], dryRun: o.dryRun === true, command: stop.resume },
        {
          clock,
          cancelled: stop.requested,
          onStatus: (s) => {
            if (o.dryRun || s.state === 'planned') return;
            progress ??= startProgress(s.plan, config, clock, startedAt, log, (e) => (eta = e));
            for (const [api, n] of Object.entries(s.calls) as Array<[ApiName, number]>) {
              const delta = n - (seen[api] ?? 0);
              if (delta > 0) eta?.completed(api, delta, clock.now());
              seen[api] = n;
            }
            progress.setDone(s.spansDone);
          },
        },
      ),
  );
  progress?.stop();
  if (status.plan.jobs.length === 0) throw new CliError(noJobMatchesBeside(o.jobs ?? [], config), EXIT_USAGE);
  if (o.dryRun) return printPlan(status.plan, range, config, notes, o.json === true);
  const state = status.state === 'planned' || status.state === 'running' ? 'incomplete' : status.state;
  finish(
    {
      mode: 'daemon',
      state,
      from: iso(range.from),
      to: iso(range.to),
      spans: status.spansDone,
      plannedSpans: status.plan.spans,
      points: status.points,
      durationSec: (clock.now() - startedAt) / 1000,
      calls: status.calls,
      failed: status.failed,
      setAside: status.setAside,
      refused: status.refused ?? 0,
      notes,
      ...(status.sinkFull === undefined ? {} : { sinkFull: status.sinkFull }),
    },
    o.json === true,
    stop,
    "the daemon's log names the cause and the fix",
  );
}

/**
 * The hand-over, ended with the resume command when the daemon dies under it. Taking the lock and going on here
 * instead would race the daemon's restart (a container's restart policy): the daemon would then fail to start.
 */
async function followHandOver(
  stop: BackfillStop,
  stopProgress: () => void,
  follow: () => Promise<BackfillStatus>,
): Promise<BackfillStatus> {
  try {
    return await follow();
  } catch (err) {
    if (!(err instanceof DaemonGoneError)) throw err;
    stopProgress();
    throw new CliError(
      `${err.message}: its request is withdrawn, the spans it confirmed are checkpointed; once a daemon runs ` +
        `again (or none does), resume with: ${stop.resume}`,
    );
  }
}

/** The daemon's jobs are not at hand: the configured ones are listed, and where discovered accounts are. */
function noJobMatchesBeside(prefixes: readonly string[], config: CollectorConfig): string {
  const discovered =
    config.accounts === 'auto' ? " (accounts: auto: `cdn-collector status` lists the daemon's jobs)" : '';
  return `${noJobMatches(prefixes, buildJobs(config))}${discovered}`;
}

function startProgress(
  plan: Plan,
  config: CollectorConfig,
  clock: Clock,
  startedAt: number,
  log: Logger,
  onEta?: (eta: BackfillEta) => void,
): BackfillProgress {
  const eta = new BackfillEta(plan.calls, quotasOf(config), startedAt);
  onEta?.(eta);
  return new BackfillProgress({
    total: plan.spans,
    eta,
    now: () => clock.now(),
    tty: Boolean(process.stderr.isTTY),
    log,
  });
}

function apiCalls(rt: Runtime): Partial<Record<ApiName, number>> {
  const out: Partial<Record<ApiName, number>> = {};
  for (const s of rt.telemetry.samples()) {
    if (s.kind === 'api_calls') out[s.labels.api as ApiName] = (out[s.labels.api as ApiName] ?? 0) + s.value;
  }
  return out;
}

/**
 * Before a backfill starts: a warning when the range reaches further back than the target keeps points (they would be
 * refused), or a note when its retention cannot be read (a VictoriaMetrics target has no buckets API).
 */
async function warnOfRetention(config: CollectorConfig, from: number, now: number): Promise<void> {
  try {
    const warning = retentionWarning(await readRetention(config.sink), from, now);
    if (warning) process.stderr.write(`warning: ${warning}\n`);
  } catch (err) {
    process.stderr.write(`note: the retention of the sink was not checked: ${(err as Error).message}\n`);
  }
}
