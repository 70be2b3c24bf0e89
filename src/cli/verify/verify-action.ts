import { systemClock } from '../../clock.js';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import { errorCodeOf } from '../../errors.js';
import { handOverVerify } from '../../verify/client.js';
import type { HandedVerifyReport } from '../../verify/requests.js';
import { formatDuration } from '../../backfill/eta.js';
import { showQuotaProgress } from '../common/quota-progress.js';
import { probeSink } from '../common/sink-probe.js';
import { loadConfigFile } from '../../config/loader.js';
import { checkConfig } from '../../config/rules.js';
import { createLogger } from '../../log.js';
import { DAY, HOUR } from '../../time.js';
import type { SeriesCheck } from '../../verify/compare.js';
import { windowOf } from '../../verify/plan.js';
import { readerKindOf } from '../../verify/readers/kind.js';
import { verifyRange } from '../../verify/run.js';
import { driftRemains, type VerifyReport } from '../../verify/verify.js';
import { applyShard } from '../common/apply-shard.js';
import type { Shard } from '../../config/shard.js';
import { EXIT_DRIFT, CliError, EXIT_USAGE } from '../common/common.js';
import { onStopSignal, stoppedExitCode, type StopSignal } from '../common/signals.js';

export interface VerifyOptions {
  config?: string;
  from: number;
  to?: number;
  repair?: boolean;
  json?: boolean;
  shard?: Shard;
  forceLogin?: boolean;
}

// What `verify` does, loaded only when it runs: its --help and argument errors load verify.ts alone.

export async function verifyAction(o: VerifyOptions): Promise<void> {
  const to = o.to ?? o.from + (o.from % DAY === 0 ? DAY : HOUR);
  const windowMs = windowOf(o.from, to);
  if (windowMs === undefined) throw new CliError('--from and --to must be whole hours (UTC) or whole days', EXIT_USAGE);
  if (o.from >= to) throw new CliError('--from must be before --to', EXIT_USAGE);
  const config = applyShard(loadConfigFile(o.config), o.shard);
  checkConfig(config);
  if (readerKindOf(config) === undefined)
    throw new CliError(`sink.type ${config.sink.type}: verify needs a database sink to read back`, EXIT_USAGE);
  // The database first: a missing one would be found only after minutes of statistic quota spent on the API.
  const database = await probeSink(config.sink);
  if (!database.ok) {
    const fix = database.fix ?? '';
    throw new CliError(`verify: the database cannot be written or read back: ${database.detail}${fix}; no API called`);
  }
  const log = createLogger(config.log);
  const bound = formatDuration(config.verify.giveUpAfter);
  const reading = `reading the provider's totals (an API failing for ${bound} ends it)`;
  let rt: Runtime;
  let report: Omit<VerifyReport, 'checked'>;
  try {
    rt = await createRuntime(config, systemClock, log, {
      shard: o.shard,
      forceLogin: o.forceLogin,
      checkAccounts: true,
    });
  } catch (err) {
    if (errorCodeOf(err) !== 'CDN_ERR_STATE_LOCKED') throw err;
    // The daemon holds the quota and the sink: it runs the check (and the repair) for us, as it runs a backfill.
    const handing = `a daemon holds ${config.state.dir}: handing the verify to it (its quota, its sink)`;
    process.stderr.write(`verify: ${database.detail}; ${handing}; ${reading}\n`);
    const request = { from: o.from, to, windowMs, repair: o.repair === true };
    const handed = await handedOver(config.state.dir, request);
    if (handed) print(handed, o.json === true);
    return;
  }
  process.stderr.write(`verify: ${database.detail}; ${reading}\n`);
  const progress = showQuotaProgress(rt, {});
  try {
    report = await verifyRange(rt, log, { from: o.from, to, windowMs }, o.repair === true);
  } finally {
    progress.stop();
    await rt.close();
  }
  print(report, o.json === true);
}

/**
 * The daemon's report of a verify handed to it. A stop signal withdraws the request, which ends the daemon's verify
 * within a second (its calls waiting for quota dropped): then undefined, and the exit code 128 + the signal's number.
 */
async function handedOver(stateDir: string, request: Parameters<typeof handOverVerify>[1]) {
  const withdraw = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const stopListening = onStopSignal({
    stop: (signal) => {
      stoppedBy = signal;
      withdraw.abort();
    },
  });
  try {
    return await handOverVerify(stateDir, request, { signal: withdraw.signal });
  } catch (err) {
    if (stoppedBy === undefined) throw err;
    process.stderr.write(`verify stopped by ${stoppedBy}: its request is withdrawn; the daemon ends the verify\n`);
    process.exitCode = stoppedExitCode(stoppedBy);
    return undefined;
  } finally {
    stopListening();
  }
}

/** The report (the daemon's, handed over, has the same fields but `checked`), and exit 3 while drift remains. */
function print(report: Omit<VerifyReport, 'checked'> | HandedVerifyReport, json: boolean): void {
  process.stdout.write(json ? `${JSON.stringify(toJson(report), null, 2)}\n` : toText(report));
  if (driftRemains(report)) process.exitCode = EXIT_DRIFT;
}

const iso = (ms: number) => new Date(ms).toISOString();

function driftJson(c: SeriesCheck) {
  const { measurement, field, account, expected, stored, difference, relative, tolerance } = c;
  return { measurement, field, account, window: iso(c.time), expected, stored, difference, relative, tolerance };
}

function toJson(r: Omit<VerifyReport, 'checked'>) {
  return {
    from: iso(r.from),
    to: iso(r.to),
    window: r.windowMs === DAY ? 'P1D' : 'PT1H',
    reader: r.reader,
    series: r.series,
    drift: r.drift.map(driftJson),
    ...(r.repair
      ? { repair: { recollected: r.repair.recollected, points: r.repair.points, after: r.repair.after.map(driftJson) } }
      : {}),
  };
}

function lines(drift: readonly SeriesCheck[]): string[] {
  return drift.map((c) => {
    const rel = c.relative === null ? 'n/a' : `${(c.relative * 100).toFixed(4)} %`;
    return (
      `  ${c.measurement}.${c.field} account=${c.account} ${iso(c.time)}: expected ${c.expected}, stored ` +
      `${c.stored}, difference ${c.difference} (${rel})`
    );
  });
}

function toText(r: Omit<VerifyReport, 'checked'>): string {
  const out = [
    `verify ${iso(r.from)} → ${iso(r.to)} (${r.reader}): ${r.series} series compared, ${r.drift.length} drifting`,
    ...lines(r.drift),
  ];
  if (r.repair) {
    const jobs = Object.keys(r.repair.recollected);
    out.push(`repair: ${jobs.length} job(s) re-collected (${r.repair.points} points): ${jobs.join(', ')}`);
    out.push(`re-check: ${r.repair.after.length} drifting`, ...lines(r.repair.after));
  }
  return `${out.join('\n')}\n`;
}
