import { systemClock } from '../clock.js';
import { startDaemon } from '../collector/daemon.js';
import { createRuntime } from '../collector/runtime.js';
import { loadConfigFile } from '../config/loader.js';
import { checkConfig } from '../config/rules.js';
import type { Shard } from '../config/shard.js';
import { createLogger } from '../log.js';
import { startHealthServer } from '../telemetry/server.js';
import { applyShard } from './shard.js';
import { startupFields } from '../collector/startup.js';
import { configDemand, overQuotaLines } from '../collector/capacity-report.js';
import { demandLine, overQuota } from '../plan/capacity.js';
import { onceVerdict, verdictExitCode, verdictLine } from '../collector/verdict.js';
import { CliError, EXIT_USAGE } from './common.js';

// What `run` does, loaded only when it runs: `run --help` and argument errors load the definition alone (run.ts).

export interface RunOptions {
  config?: string;
  check?: boolean;
  online?: boolean;
  once?: boolean;
  dryRun?: boolean;
  shard?: Shard;
}

export async function runAction(o: RunOptions): Promise<void> {
  if (o.online && !o.check) throw new CliError('--online goes with --check', EXIT_USAGE);
  if (o.dryRun && !o.once) throw new CliError('--dry-run goes with --once', EXIT_USAGE);
  const config = applyShard(loadConfigFile(o.config), o.shard);
  checkConfig(config);
  const source = o.config ?? 'configuration from the environment';
  if (o.check && o.online) {
    for (const line of overQuotaLines(config, Date.now())) process.stdout.write(`warning: ${line}\n`);
    const { runOnlineCheck } = await import('./check-online.js'); // the daemon does not load the checks
    process.exitCode = await runOnlineCheck(config, source, o.shard);
    return;
  }
  if (o.check) {
    const scope = o.shard ? ` (shard ${o.shard.index}/${o.shard.count}: ${config.accounts === 'auto' ? 'discovered accounts' : config.accounts.join(', ')})` : '';
    process.stdout.write(`${source}: valid${scope}\n`);
    // Valid but too much work for a quota: a warning (exit 0), the config runs, just slower than configured.
    for (const line of overQuotaLines(config, Date.now())) process.stdout.write(`warning: ${line}\n`);
    return;
  }
  if (o.dryRun) {
    const { printPoints } = await import('./check-online.js');
    process.exitCode = await printPoints(config, o.shard);
    return;
  }
  const log = createLogger(config.log);
  // Before anything that may wait: within a second the user sees what this run is doing.
  log.info(startupFields(config, source), o.once ? 'collecting once' : 'starting');
  const demand = configDemand(config, systemClock.now());
  for (const d of overQuota(demand)) log.warn(demandLine(d));
  const rt = await createRuntime(config, systemClock, log, { shard: o.shard });
  for (const d of demand) rt.telemetry.quotaDemand(d.api, d.ratio);
  if (o.once) {
    await rt.discovery?.refresh(); // accounts: auto: a failed read is the run's error
    const results = await rt.collector.tick();
    for (const r of results) log.info({ job: r.key, spans: r.spans, points: r.points, setAside: r.setAside, refused: r.refused, error: r.error }, 'pass');
    const byKey = new Map(rt.collector.jobs.map((j) => [j.key, j]));
    const verdict = onceVerdict(results, (key) => rt.collector.pending(byKey.get(key)!).length, rt.watch.total(), rt.telemetry.refusedPoints());
    await rt.close();
    process.stdout.write(`${verdictLine(verdict)}\n`);
    process.exitCode = verdictExitCode(verdict);
    return;
  }
  const health = config.http.port !== undefined ? await startHealthServer(rt, config.http) : undefined;
  // A mistyped key would silently leave that job on the general limit.
  const unknownLagKeys = Object.keys(config.http.jobMaxLag).filter((key) => !rt.collector.jobs.some((j) => j.key === key));
  if (unknownLagKeys.length > 0) log.warn({ keys: unknownLagKeys }, 'http.jobMaxLag names no job of this collector (or shard)');
  const daemon = startDaemon(rt, log);
  log.info({ jobs: rt.collector.jobs.length, health: health?.url }, 'collector started');
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      log.info({ signal }, 'stopping: finishing in-flight calls, flushing, saving checkpoints');
      resolve();
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });
  await daemon.stop();
  await health?.close();
  await rt.close();
  log.info('stopped');
}
