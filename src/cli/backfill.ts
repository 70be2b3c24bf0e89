import { Command } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { systemClock } from '../clock.js';
import { runBackfill } from '../collector/backfill.js';
import { createRuntime, type Runtime } from '../collector/runtime.js';
import { loadConfigFile } from '../config/loader.js';
import { checkConfig } from '../config/rules.js';
import type { Shard } from '../config/shard.js';
import { createLogger, type Logger } from '../log.js';
import { estimateDuration, planBackfill, type BackfillPlan } from '../plan/planner.js';
import type { ApiName } from '../spec/apis.js';
import { CliError, collect, configFileOption, configHelp, EXIT_USAGE, parseTimeOption } from './common.js';
import { applyShard, shardOption } from './shard.js';

interface BackfillOptions {
  config?: string;
  from: number;
  to?: number;
  jobs?: string[];
  dryRun?: boolean;
  json?: boolean;
  shard?: Shard;
}

export function backfillCommand(): Command {
  return new Command('backfill')
    .description('Collect a historical range once, within the quotas; resumable (shares checkpoints with the daemon)')
    .addOption(configFileOption())
    .requiredOption('--from <time>', 'start (ISO 8601, UTC when no zone)', parseTimeOption('--from'))
    .option('--to <time>', 'end, exclusive, ISO 8601 (default: now; capped at the newest final window)', parseTimeOption('--to'))
    .option('--jobs <prefix>', 'only jobs whose key starts with this (metrics, statistic/acme, …); repeatable', collect)
    .option('--dry-run', 'print the plan (calls per API, minimum duration under the quotas) and exit')
    .option('--json', 'print the plan or the result as JSON')
    .addOption(shardOption())
    .addHelpText('after', configHelp('incomplete: some spans failed or were set aside (rerun to resume)', 'complete (or --dry-run)'))
    .action(async (o: BackfillOptions) => {
      const from = o.from;
      const to = o.to ?? Date.now();
      if (from >= to) throw new CliError('--from must be before --to', EXIT_USAGE);
      const config = applyShard(loadConfigFile(o.config), o.shard);
      checkConfig(config);
      const log = createLogger(config.log);
      const rt = await createRuntime(config, systemClock, log, { shard: o.shard });
      try {
        await rt.discovery?.refresh(); // accounts: auto: the jobs to plan are those of the token's accounts now
        const plan = planBackfill(rt.collector, { from, to }, o.jobs ?? []);
        if (plan.jobs.length === 0) throw new CliError(`--jobs: no job matches ${(o.jobs ?? []).join(', ')}`, EXIT_USAGE);
        if (o.dryRun) return printPlan(plan, rt, o.json === true);
        const { failed, setAside } = await execute(plan, rt, log);
        if (failed.length > 0) {
          throw new CliError(`backfill incomplete; rerun to resume. Failed jobs: ${failed.join(', ')}`);
        }
        if (setAside > 0) {
          throw new CliError(
            `backfill incomplete: ${setAside} span(s) failed for a permanent reason and were set aside ` +
              '(`cdn-collector status` lists them with the reason); they are retried from 10 minutes up to every 6 hours',
          );
        }
      } finally {
        await rt.close();
      }
    });
}

function quotaDuration(plan: BackfillPlan, rt: Runtime): number {
  const q = rt.config.quotas;
  const quotas = Object.fromEntries(
    (Object.keys(plan.calls) as ApiName[]).map((api) => [api, { calls: q[api].calls, periodMs: q[api].period }]),
  );
  return estimateDuration(plan.calls, quotas);
}

function printPlan(plan: BackfillPlan, rt: Runtime, json: boolean): void {
  const summary = {
    from: new Date(plan.range.from).toISOString(),
    to: new Date(plan.range.to).toISOString(),
    jobs: plan.jobs.map(({ job, spans }) => ({ key: job.key, api: job.api, spans: spans.length })),
    calls: plan.calls,
    pagingMayAdd: plan.pagingMayAdd,
    minimumDurationSec: Math.round(quotaDuration(plan, rt) / 1000),
  };
  if (json) return void process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(`Backfill ${summary.from} → ${summary.to}: ${plan.spans} spans in ${plan.jobs.length} jobs\n`);
  for (const [api, calls] of Object.entries(plan.calls) as Array<[ApiName, number]>) {
    const more = plan.pagingMayAdd.includes(api) ? ' at least (paging can add calls)' : '';
    process.stdout.write(`  ${api}: ${calls} calls${more}\n`);
  }
  process.stdout.write(`  at least ${summary.minimumDurationSec} s under the configured quotas\n`);
}

/**
 * Runs the plan with a progress bar on a TTY (log lines otherwise); reruns failed jobs while they make progress.
 * Returns the jobs that still failed and how many spans were set aside.
 */
async function execute(plan: BackfillPlan, rt: Runtime, log: Logger): Promise<{ failed: string[]; setAside: number }> {
  const tty = Boolean(process.stderr.isTTY);
  const bar = tty ? new SingleBar({ format: 'backfill [{bar}] {value}/{total} spans | ETA {eta_formatted}' }, Presets.shades_classic) : undefined;
  bar?.start(plan.spans, 0);
  let done = 0;
  let lastLog = Date.now();
  const onSpan = () => {
    done++;
    bar?.update(done);
    if (!tty && Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log.info({ done, total: plan.spans }, 'backfill progress');
    }
  };
  let failed: string[] = [];
  let setAside = 0;
  for (let round = 0; round < 3; round++) {
    const results = await runBackfill(rt.collector, round === 0 ? plan : planBackfill(rt.collector, plan.range, failed), onSpan);
    failed = results.filter((r) => r.error).map((r) => r.key);
    setAside += results.reduce((n, r) => n + r.setAside, 0);
    if (failed.length === 0 || results.every((r) => r.spans === 0)) break;
  }
  bar?.stop();
  log.info({ spans: done, failed, setAside }, 'backfill finished');
  return { failed, setAside };
}
