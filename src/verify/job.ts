import { scheduleUtc, type CronTask } from '../cron.js';
import type { Logger } from '../log.js';
import { DAY, floorTo } from '../time.js';
import { readerKindOf } from './readers/kind.js';
import type { VerifyHost, VerifyRange } from './run.js';

/**
 * The days the daemon verifies at `now`: the `days` whole UTC days before the newest one whose last buckets are
 * final (statistics an hour after a bucket ends), so a run never reports data that is still arriving as drift.
 */
export function daemonRange(rt: Pick<VerifyHost, 'config'>, now: number): VerifyRange {
  const { jobs, verify } = rt.config;
  // A day is final once its last bucket is: `lag` after the day ends (a daily uniques bucket too).
  const lag = Math.max(...[jobs.statistic, jobs.streamstat].map((s) => (s.enabled ? s.lag : 0)));
  const to = floorTo(now - lag, DAY);
  return { from: to - verify.days * DAY, to, windowMs: DAY };
}

/**
 * The slow reconciliation job of the daemon (config `verify`): on its schedule, the last whole days, with repair when
 * configured. Its calls go through the limiter at backfill priority (live collection first); a failure is logged and
 * the next run tries again. undefined when disabled or when the sink cannot be read back (logged once).
 */
export function scheduleVerify(rt: VerifyHost, log: Logger): CronTask | undefined {
  const settings = rt.config.verify;
  if (!settings.enabled) return undefined;
  if (readerKindOf(rt.config) === undefined) {
    log.info({ sink: rt.config.sink.type }, 'verify job off: the sink cannot be read back');
    return undefined;
  }
  const run = async () => {
    const range = daemonRange(rt, rt.clock.now());
    try {
      const { verifyRange } = await import('./run.js'); // loaded when it runs (daily), not with the daemon
      await verifyRange(rt, log, range, settings.repair);
    } catch (err) {
      log.warn(
        { err: (err as Error).message, from: new Date(range.from).toISOString() },
        'verify failed; retried at the next run',
      );
    }
  };
  return scheduleUtc(settings.schedule, run, {
    noOverlap: true,
    onError: (err) => log.warn({ err: String(err) }, 'verify failed'),
  });
}
