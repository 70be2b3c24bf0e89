import { systemClock } from '../../clock.js';
import { startDaemon } from '../../app/daemon.js';
import type { PassResult } from '../../collector/collector.js';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import { stopCollecting } from '../../app/stop.js';
import { loadConfigFile } from '../../config/loader.js';
import { checkConfig } from '../../config/rules.js';
import type { Shard } from '../../config/shard.js';
import { shardQuotaText } from '../../config/shard-quota.js';
import { LISTEN_ENV } from '../../config/env.js';
import { createLogger, type Logger } from '../../log.js';
import { startHealthServer, type TelemetryServer } from '../../telemetry/server.js';
import { applyShard } from '../common/apply-shard.js';
import { startupFields } from '../common/startup.js';
import { configDemand, overQuotaLines } from './capacity-report.js';
import { demandLine, overQuota } from '../../plan/capacity.js';
import { onceVerdict, stoppedVerdictLine, verdictExitCode, verdictLine } from '../common/verdict.js';
import { passCalls } from '../../app/quota-waits.js';
import { showQuotaProgress } from '../common/quota-progress.js';
import { CliError, EXIT_USAGE, listenError } from '../common/common.js';
import { onStopSignal, stoppedExitCode, type StopSignal } from '../common/signals.js';

// What `run` does, loaded only when it runs: `run --help` and argument errors load the definition alone (run.ts).

export interface RunOptions {
  config?: string;
  check?: boolean;
  online?: boolean;
  once?: boolean;
  dryRun?: boolean;
  shard?: Shard;
  forceLogin?: boolean;
}

export async function runAction(o: RunOptions): Promise<void> {
  if (o.online && !o.check) throw new CliError('--online goes with --check', EXIT_USAGE);
  if (o.dryRun && !o.once) throw new CliError('--dry-run goes with --once', EXIT_USAGE);
  const clock = systemClock;
  const config = applyShard(loadConfigFile(o.config), o.shard);
  checkConfig(config);
  const source = o.config ?? 'configuration from the environment';
  if (o.check && o.online) {
    for (const line of overQuotaLines(config, clock.now())) process.stdout.write(`warning: ${line}\n`);
    const { runOnlineCheck } = await import('./check-online.js'); // the daemon does not load the checks
    process.exitCode = await runOnlineCheck(config, source, o.shard, o.forceLogin);
    return;
  }
  if (o.check) {
    const scope = o.shard
      ? ` (shard ${o.shard.index}/${o.shard.count}: ` +
        `${config.accounts === 'auto' ? 'discovered accounts' : config.accounts.join(', ')})`
      : '';
    process.stdout.write(`${source}: valid${scope}\n`);
    const share = shardQuotaText(config, o.shard);
    if (share) process.stdout.write(`quotas shared by ${o.shard?.count} shards, this shard's part: ${share}\n`);
    // Valid but too much work for a quota: a warning (exit 0), the config runs, just slower than configured.
    for (const line of overQuotaLines(config, clock.now())) process.stdout.write(`warning: ${line}\n`);
    return;
  }
  if (o.dryRun) {
    const { printPoints } = await import('./check-online.js');
    process.exitCode = await printPoints(config, o.shard, o.forceLogin);
    return;
  }
  const log = createLogger(config.log);
  // Before anything that may wait: within a second the user sees what this run is doing.
  const startup = { event: o.once ? 'collecting_once' : 'starting', ...startupFields(config, source) };
  log.info(startup, o.once ? 'collecting once' : 'starting');
  const share = shardQuotaText(config, o.shard);
  if (share)
    log.info({ shards: o.shard?.count, quotas: share }, 'quotas shared by the shards: this shard spends its part');
  const demand = configDemand(config, clock.now());
  for (const d of overQuota(demand)) log.warn({ event: 'over_quota', api: d.api, ratio: d.ratio }, demandLine(d));
  const rt = await createRuntime(config, clock, log, { shard: o.shard, forceLogin: o.forceLogin, checkAccounts: true });
  for (const d of demand) rt.telemetry.quotaDemand(d.api, d.ratio);
  if (o.once) return once(rt, log);
  let health: TelemetryServer | undefined;
  try {
    health = config.http.port !== undefined ? await startHealthServer(rt, config.http) : undefined;
  } catch (err) {
    await rt.close();
    const { host = '127.0.0.1', port } = config.http;
    const from = `(--listen, ${LISTEN_ENV}, or the config file)`;
    const settings = { port: `http.port ${port} ${from}`, host: `http.host ${host} ${from}` };
    throw listenError(err, `${host}:${port}`, settings) ?? err;
  }
  // A mistyped key would silently leave that job on the general limit.
  const unknownLagKeys = Object.keys(config.http.jobMaxLag).filter(
    (key) => !rt.collector.jobs.some((j) => j.key === key),
  );
  if (unknownLagKeys.length > 0)
    log.warn({ keys: unknownLagKeys }, 'http.jobMaxLag names no job of this collector (or shard)');
  const daemon = startDaemon(rt, log);
  log.info({ event: 'collector_started', jobs: rt.collector.jobs.length, health: health?.url }, 'collector started');
  // Stopping is how the daemon ends: exit 0 after it stopped (systemd, Kubernetes, Ctrl-C alike).
  let dispose = () => {};
  await new Promise<void>((resolve) => {
    dispose = onStopSignal({
      stop: (signal) => {
        log.info({ event: 'stopping', signal }, STOPPING);
        resolve();
      },
      // systemd's ExecReload, logrotate's postrotate and a closed terminal send it; a reload would be a restart.
      hangup: () => log.warn({ signal: 'SIGHUP' }, HANGUP_IGNORED),
    });
  });
  await daemon.stop();
  await health?.close();
  await rt.close();
  dispose();
  log.info({ event: 'stopped' }, 'stopped');
}

const STOPPING = 'stopping: finishing in-flight calls, flushing, saving checkpoints';
const HANGUP_IGNORED = 'SIGHUP ignored: the configuration is read at start only; restart to apply a change';

/**
 * One pass of every job, then the verdict line. A stop signal stops it as it stops the daemon (in-flight calls
 * finish and are confirmed, queued ones are dropped) and the verdict says what was kept and what is left.
 */
async function once(rt: Runtime, log: Logger): Promise<void> {
  let stoppedBy: StopSignal | undefined;
  const dispose = onStopSignal({
    stop: (signal) => {
      stoppedBy = signal;
      log.info({ event: 'stopping', signal }, STOPPING);
      void stopCollecting(rt);
    },
  });
  let line: string;
  let cause: string | undefined;
  try {
    // accounts: auto: a failed read is the run's error (unless a stop cut it short)
    await rt.discovery?.refresh().catch((err: unknown) => {
      if (stoppedBy === undefined) throw err;
    });
    const progress = showQuotaProgress(rt, passCalls(rt.collector));
    const results = await rt.collector.tick().finally(() => progress.stop());
    for (const r of results) {
      log.info(
        {
          event: 'job_pass',
          job: r.key,
          spans: r.spans,
          points: r.points,
          setAside: r.setAside,
          refused: r.refused,
          error: r.error,
        },
        'pass',
      );
    }
    const byKey = new Map(rt.collector.jobs.map((j) => [j.key, j]));
    const pendingOf = (key: string) => rt.collector.pending(byKey.get(key)!).length;
    const verdict = onceVerdict(results, pendingOf, rt.watch.total(), rt.telemetry.refusedPoints());
    const left = stoppedBy === undefined ? 0 : windowsLeft(rt, results);
    line = stoppedBy === undefined ? verdictLine(verdict) : stoppedVerdictLine(verdict, stoppedBy, left);
    process.exitCode = stoppedBy !== undefined && left > 0 ? stoppedExitCode(stoppedBy) : verdictExitCode(verdict);
    // Loaded only then: a run whose windows all went through never needs the probe.
    if (stoppedBy === undefined && verdict.failed > 0) {
      cause = await (await import('../common/sink-probe.js')).sinkFailureCause(rt.config.sink);
    }
  } finally {
    await rt.close();
    dispose();
  }
  process.stdout.write(`${line}\n${cause === undefined ? '' : `once: cause: ${cause}\n`}`);
}

/** Windows a stopped pass left: still pending in a checkpointed job; the current one of a job that collected none. */
function windowsLeft(rt: Runtime, results: readonly PassResult[]): number {
  const collected = new Map(results.map((r) => [r.key, r.spans]));
  return rt.collector.jobs.reduce((n, job) => {
    if (!job.checkpointed && (collected.get(job.key) ?? 0) > 0) return n;
    return n + rt.collector.pending(job).length;
  }, 0);
}
