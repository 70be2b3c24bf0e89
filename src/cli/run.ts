import { Command } from 'commander';
import { systemClock } from '../clock.js';
import { startDaemon } from '../collector/daemon.js';
import { createRuntime } from '../collector/runtime.js';
import { loadConfigFile } from '../config/loader.js';
import { checkConfig } from '../config/rules.js';
import type { Shard } from '../config/shard.js';
import { createLogger } from '../log.js';
import { startHealthServer } from '../telemetry/server.js';
import { applyShard, shardOption } from './shard.js';
import { startupFields } from '../collector/startup.js';
import { configDemand, overQuotaLines } from '../collector/capacity-report.js';
import { demandLine, overQuota } from '../plan/capacity.js';
import { EXIT_SET_ASIDE, EXIT_WINDOWS_FAILED, onceVerdict, verdictExitCode, verdictLine } from '../collector/verdict.js';
import { printPoints, runOnlineCheck } from './check-online.js';
import { CliError, configFileOption, configHelp, EXIT_USAGE } from './common.js';

const EXIT_CODES_HELP = configHelp(
  'an error stopped it (the message says which); --check --online: some check failed',
  'stopped; --once: every pending window collected; --check: all checks passed',
  [
    `${EXIT_SET_ASIDE}  --once: some windows were set aside (a permanent failure of that window; retried later)`,
    `${EXIT_WINDOWS_FAILED}  --once: some windows failed (API or sink down, token refused): they stay pending;`,
    '   --once --dry-run: some job did not answer',
  ],
);

interface RunOptions {
  config?: string;
  check?: boolean;
  online?: boolean;
  once?: boolean;
  dryRun?: boolean;
  shard?: Shard;
}

export function runCommand(): Command {
  return new Command('run')
    .description('Run the collector daemon: scheduled collection, gap filling from checkpoints, graceful stop on SIGINT/SIGTERM')
    .addOption(configFileOption())
    .option('--check', 'validate the configuration and exit (0 = valid, 2 = invalid); warns of work that exceeds a quota')
    .option('--online', 'with --check: also call each enabled API once and test a write to the sink; a verdict per API and sink (exit 0 all ok, 1 some failed)')
    .option('--once', 'run one pass of every job (fills gaps), print a one-line verdict and exit (see the exit codes)')
    .option('--dry-run', 'with --once: read the newest window of every job and print its points as line protocol on stdout; writes nothing, changes no checkpoint')
    .addOption(shardOption())
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (o: RunOptions) => {
      if (o.online && !o.check) throw new CliError('--online goes with --check', EXIT_USAGE);
      if (o.dryRun && !o.once) throw new CliError('--dry-run goes with --once', EXIT_USAGE);
      const config = applyShard(loadConfigFile(o.config), o.shard);
      checkConfig(config);
      const source = o.config ?? 'configuration from the environment';
      if (o.check && o.online) {
        for (const line of overQuotaLines(config, Date.now())) process.stdout.write(`warning: ${line}\n`);
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
        for (const r of results) log.info({ job: r.key, spans: r.spans, points: r.points, setAside: r.setAside, error: r.error }, 'pass');
        const byKey = new Map(rt.collector.jobs.map((j) => [j.key, j]));
        const verdict = onceVerdict(results, (key) => rt.collector.pending(byKey.get(key)!).length, rt.watch.total());
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
    });
}
