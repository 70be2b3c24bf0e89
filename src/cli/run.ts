import { Command } from 'commander';
import { systemClock } from '../clock.js';
import { startDaemon } from '../collector/daemon.js';
import { createRuntime } from '../collector/runtime.js';
import { loadConfigFile } from '../config/loader.js';
import { checkConfig } from '../config/rules.js';
import type { Shard } from '../config/shard.js';
import { createLogger } from '../log.js';
import { startHealthServer } from '../telemetry/server.js';
import { configFileOption, configHelp } from './common.js';
import { applyShard, shardOption } from './shard.js';

export function runCommand(): Command {
  return new Command('run')
    .description('Run the collector daemon: scheduled collection, gap filling from checkpoints, graceful stop on SIGINT/SIGTERM')
    .addOption(configFileOption())
    .option('--check', 'validate the configuration and exit (0 = valid, 2 = invalid)')
    .option('--once', 'run one pass of every job (fills gaps) and exit')
    .addOption(shardOption())
    .addHelpText('after', configHelp('a pass failed (--once) or the daemon could not start', 'stopped (or --check: valid)'))
    .action(async (o: { config?: string; check?: boolean; once?: boolean; shard?: Shard }) => {
      const config = applyShard(loadConfigFile(o.config), o.shard);
      checkConfig(config);
      if (o.check) {
        const scope = o.shard ? ` (shard ${o.shard.index}/${o.shard.count}: ${config.accounts === 'auto' ? 'discovered accounts' : config.accounts.join(', ')})` : '';
        process.stdout.write(`${o.config ?? 'configuration from the environment'}: valid${scope}\n`);
        return;
      }
      const log = createLogger(config.log);
      const rt = await createRuntime(config, systemClock, log, { shard: o.shard });
      if (o.once) {
        await rt.discovery?.refresh(); // accounts: auto: a failed read is the run's error
        const results = await rt.collector.tick();
        for (const r of results) log.info({ job: r.key, spans: r.spans, points: r.points, error: r.error }, 'pass');
        await rt.close();
        if (results.some((r) => r.error)) process.exitCode = 1;
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
