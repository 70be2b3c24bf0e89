import { systemClock } from '../../clock.js';
import { checkApis, sampleJob } from './probe.js';
import { showQuotaProgress } from '../common/quota-progress.js';
import { createRuntime } from '../../app/runtime.js';
import { probeSink, type Verdict } from '../common/sink-probe.js';
import { sinkTarget } from '../common/startup.js';
import { describeError } from '../../collector/errors.js';
import { EXIT_WINDOWS_FAILED } from '../common/verdict.js';
import type { CollectorConfig } from '../../config/schema.js';
import type { Shard } from '../../config/shard.js';
import { createLogger } from '../../log.js';
import { SCHEMA } from '../../schema/schema.js';
import { createEncoder } from '../../sink/index.js';
import { withoutUserinfo } from '../../secrets.js';
import type { ApiName } from '../../spec/apis.js';
import { counted } from '../../words.js';

/**
 * `run --check --online`: one call to each enabled API and one empty write to the sink, a verdict line each, in
 * seconds. Takes the state lock (calls go through the limiter and the quota journal, so a check never overspends a
 * quota): stop the daemon first, or read `status` while it runs. Exit 0 when every check passed, 1 otherwise.
 */
export async function runOnlineCheck(
  config: CollectorConfig,
  configPath: string,
  shard: Shard | undefined,
  forceLogin?: boolean,
): Promise<number> {
  process.stdout.write(
    `${configPath}: valid; checking ${withoutUserinfo(config.api.baseUrl)} and the sink ` +
      `(${sinkTarget(config.sink)})…\n`,
  );
  // The verdicts say it all; the runtime's own first-failure lines would repeat them.
  const rt = await createRuntime(config, systemClock, createLogger('fatal'), {
    shard,
    forceLogin,
    checkAccounts: true,
  });
  let verdicts: Array<[string, Verdict]>;
  try {
    const [apis, sink] = await Promise.all([checkApis(rt), probeSink(config.sink)]);
    verdicts = [...[...apis].map(([api, v]): [string, Verdict] => [`api ${api}`, v]), ['sink', sink]];
  } finally {
    await rt.close();
  }
  for (const [what, v] of verdicts)
    process.stdout.write(`  ${what.padEnd(16)} ${v.ok ? 'ok    ' : 'FAILED'}  ${v.detail}\n`);
  const failed = verdicts.filter(([, v]) => !v.ok).length;
  process.stdout.write(
    failed === 0
      ? `online check: all ${verdicts.length} passed\n`
      : `online check: ${failed} of ${verdicts.length} FAILED\n`,
  );
  return failed === 0 ? 0 : 1;
}

/** Every job waits its turn for the quota: hundreds of jobs on 5 calls a minute take a while, and that is right. */
const DRY_RUN_DEADLINE_MS = 6 * 3_600_000;

/**
 * `run --once --dry-run` (Telegraf's `--test`): the newest window of every job, printed as line protocol on stdout.
 * Nothing is written to the sink, no checkpoint or set-aside entry changes; calls are counted in the quota journal.
 * Exit 0 when every job answered, EXIT_WINDOWS_FAILED otherwise (each failure on stderr).
 */
export async function printPoints(
  config: CollectorConfig,
  shard: Shard | undefined,
  forceLogin?: boolean,
): Promise<number> {
  const log = createLogger(config.log.level);
  const rt = await createRuntime(config, systemClock, log, { shard, forceLogin });
  const encode = createEncoder('s', {
    schema: SCHEMA,
    backslashes:
      config.sink.type === 'influx-v2'
        ? config.sink.backslashes
        : config.sink.type === 'victoriametrics'
          ? 'escaped'
          : 'verbatim',
  });
  let failed = 0;
  let points = 0;
  try {
    await rt.discovery?.refresh();
    const jobs = rt.collector.jobs;
    process.stderr.write(
      `dry run: reading the newest window of ${counted(jobs.length, 'job')}, within the quotas (a small quota makes ` +
        `it wait its turn)…\n`,
    );
    const planned: Partial<Record<ApiName, number>> = {};
    for (const job of jobs) planned[job.api] = (planned[job.api] ?? 0) + 1; // the newest window: one call at least
    const progress = showQuotaProgress(rt, planned);
    const samples = await Promise.all(
      jobs.map((job) =>
        sampleJob(rt, job, DRY_RUN_DEADLINE_MS).then(
          (p) => ({ job, points: p }),
          (err: unknown) => ({ job, err }),
        ),
      ),
    ).finally(() => progress.stop());
    for (const sample of samples) {
      if ('err' in sample) {
        failed++;
        process.stderr.write(`dry run: ${sample.job.key}: ${describeError(sample.err)}\n`);
        continue;
      }
      const lines = sample.points.map(encode).filter((line): line is string => line !== undefined);
      points += lines.length;
      if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
    }
  } finally {
    await rt.close();
  }
  const jobs = rt.collector.jobs.length;
  process.stderr.write(
    `dry run: ${jobs - failed} of ${counted(jobs, 'job')} answered, ${counted(points, 'point')} printed; nothing ` +
      `written, no checkpoint changed\n`,
  );
  return failed === 0 ? 0 : EXIT_WINDOWS_FAILED;
}
