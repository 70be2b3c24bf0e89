/**
 * The collector's cron schedules, read in UTC whatever the process's zone (TZ): its windows are UTC. node-cron reads
 * the expressions (its public `createTask` and `getNextRuns`, with `timezone: 'UTC'`); the timer is ours. node-cron's
 * own scheduler truncates "now" to the second through local time, which during the hour a change of time repeats
 * (TZ=Europe/Berlin, the end of summer time) lands an hour back: it ran nothing from 02:00 CEST to 03:00 CET, its
 * `timezone` option notwithstanding. Every schedule, and every reading of one, goes through here.
 */
import { createTask, type ScheduledTask } from 'node-cron';
import { systemClock } from './clock.js';

/** The zone every cron expression of the config is read in. */
export const CRON_TIME_ZONE = 'UTC';

/** The longest the timer sleeps before it looks at the wall clock again (a clock stepped back is noticed). */
const MAX_SLEEP_MS = 60_000;

export interface CronOptions {
  /** Skip a run while the previous one still runs. */
  noOverlap: boolean;
  /** What a run that throws or rejects is handed to (a schedule never dies of it). */
  onError(err: unknown): void;
}

/** A running schedule. */
export interface CronTask {
  /** No run starts after this; a run in progress goes on. */
  stop(): Promise<void>;
}

/**
 * node-cron's reading of `expression` in UTC, never started: its next times from now. node-cron keeps every task it
 * creates in a registry until it is destroyed, so each is destroyed when done with.
 */
function readCron(expression: string): ScheduledTask {
  return createTask(expression, () => {}, { timezone: CRON_TIME_ZONE });
}

/**
 * Runs `run` at each time `expression` matches in UTC; a run whose time passed while the timer slept runs once. On the
 * system clock: node-cron reads it to find the next match, so a schedule cannot follow another clock.
 */
export function scheduleUtc(expression: string, run: () => unknown, options: CronOptions): CronTask {
  const cron = readCron(expression);
  const next = () => cron.getNextRuns(1)[0]!.getTime();
  let due = next();
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const fire = () => {
    if (options.noOverlap && running) return;
    const current = Promise.resolve()
      .then(run)
      .then(
        () => undefined,
        (err: unknown) => options.onError(err),
      )
      .finally(() => {
        if (running === current) running = undefined;
      });
    running = current;
  };
  const arm = () => {
    if (stopped) return;
    const now = systemClock.now();
    if (now >= due) {
      fire();
      due = next();
    }
    timer = setTimeout(arm, Math.min(Math.max(due - systemClock.now(), 0), MAX_SLEEP_MS));
  };
  arm();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await cron.destroy();
    },
  };
}

/** The next `count` times `expression` matches in UTC, from now. */
export function nextRunsUtc(expression: string, count: number): Date[] {
  const cron = readCron(expression);
  try {
    return cron.getNextRuns(count);
  } finally {
    void cron.destroy();
  }
}
