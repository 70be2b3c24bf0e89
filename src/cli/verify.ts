import { Command } from 'commander';
import { systemClock } from '../clock.js';
import { createRuntime } from '../collector/runtime.js';
import { loadConfigFile } from '../config/loader.js';
import { checkConfig } from '../config/rules.js';
import type { Shard } from '../config/shard.js';
import { createLogger } from '../log.js';
import { DAY, HOUR } from '../time.js';
import type { SeriesCheck } from '../verify/compare.js';
import { windowOf } from '../verify/plan.js';
import { readerKindOf } from '../verify/readers/index.js';
import { verifyRange } from '../verify/run.js';
import { driftRemains, type VerifyReport } from '../verify/verify.js';
import { CliError, configFileOption, configHelp, EXIT_USAGE, parseTimeOption } from './common.js';
import { applyShard, shardOption } from './shard.js';

/** Exit code when drift is found (after --repair: when the re-check still finds some). */
export const EXIT_DRIFT = 3;

interface VerifyOptions {
  config?: string;
  from: number;
  to?: number;
  repair?: boolean;
  json?: boolean;
  shard?: Shard;
}

export function verifyCommand(): Command {
  return new Command('verify')
    .description('Reconcile: compare the sums stored in the database with the provider totals per account, grouping and day (or hour)')
    .addOption(configFileOption())
    .requiredOption('--from <time>', 'start, a whole day or hour (ISO 8601, UTC when no zone)', parseTimeOption('--from'))
    .option('--to <time>', 'end, exclusive (default: --from + 1 day when --from is a day, else + 1 hour)', parseTimeOption('--to'))
    .option('--repair', 're-collect the windows that drift (through the quotas), then check again')
    .option('--json', 'print the report as JSON')
    .addOption(shardOption())
    .addHelpText(
      'after',
      configHelp('the check could not finish (API or database unreachable)', 'no drift (the sink is the database read back)', [
        `${EXIT_DRIFT}  drift found (with --repair: still drifting after the repair)`,
      ]),
    )
    .action(async (o: VerifyOptions) => {
      const to = o.to ?? o.from + (o.from % DAY === 0 ? DAY : HOUR);
      const windowMs = windowOf(o.from, to);
      if (windowMs === undefined) throw new CliError('--from and --to must be whole hours (UTC) or whole days', EXIT_USAGE);
      if (o.from >= to) throw new CliError('--from must be before --to', EXIT_USAGE);
      const config = applyShard(loadConfigFile(o.config), o.shard);
      checkConfig(config);
      if (readerKindOf(config) === undefined) throw new CliError(`sink.type ${config.sink.type}: verify needs a database sink to read back`, EXIT_USAGE);
      const log = createLogger(config.log);
      const rt = await createRuntime(config, systemClock, log, { shard: o.shard });
      let report: VerifyReport;
      try {
        report = await verifyRange(rt, log, { from: o.from, to, windowMs }, o.repair === true);
      } finally {
        await rt.close();
      }
      process.stdout.write(o.json ? `${JSON.stringify(toJson(report), null, 2)}\n` : toText(report));
      if (driftRemains(report)) process.exitCode = EXIT_DRIFT;
    });
}

const iso = (ms: number) => new Date(ms).toISOString();

function driftJson(c: SeriesCheck) {
  const { measurement, field, account, expected, stored, difference, relative, tolerance } = c;
  return { measurement, field, account, window: iso(c.time), expected, stored, difference, relative, tolerance };
}

function toJson(r: VerifyReport) {
  return {
    from: iso(r.from),
    to: iso(r.to),
    window: r.windowMs === DAY ? 'P1D' : 'PT1H',
    reader: r.reader,
    series: r.series,
    drift: r.drift.map(driftJson),
    ...(r.repair ? { repair: { recollected: r.repair.recollected, points: r.repair.points, after: r.repair.after.map(driftJson) } } : {}),
  };
}

function lines(drift: readonly SeriesCheck[]): string[] {
  return drift.map((c) => {
    const rel = c.relative === null ? 'n/a' : `${(c.relative * 100).toFixed(4)} %`;
    return `  ${c.measurement}.${c.field} account=${c.account} ${iso(c.time)}: expected ${c.expected}, stored ${c.stored}, difference ${c.difference} (${rel})`;
  });
}

function toText(r: VerifyReport): string {
  const out = [`verify ${iso(r.from)} → ${iso(r.to)} (${r.reader}): ${r.series} series compared, ${r.drift.length} drifting`, ...lines(r.drift)];
  if (r.repair) {
    const jobs = Object.keys(r.repair.recollected);
    out.push(`repair: ${jobs.length} job(s) re-collected (${r.repair.points} points): ${jobs.join(', ')}`);
    out.push(`re-check: ${r.repair.after.length} drifting`, ...lines(r.repair.after));
  }
  return `${out.join('\n')}\n`;
}
