import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';

/** While something keeps failing, one summary line per this long (the first failure is reported at once). */
export const FAILURE_SUMMARY_MS = 60_000;

/** The first line of a run of failures, worded by the caller: what failed, why, and what fixes it. */
export interface FirstFailure {
  level: 'error' | 'warn';
  msg: string;
}

/** Who failed, as the lines name it: `label` starts the summary and recovery lines, `fields` go on every line. */
export interface Failing {
  label: string;
  fields: Record<string, unknown>;
}

interface Run {
  since: number;
  count: number;
  detail: Record<string, unknown>;
  summarizedAt: number;
}

/**
 * Runs of failures of the dependencies of a process (each API, the sink), logged alike: a retry loop would otherwise
 * print a line per attempt, or nothing for minutes. The first failure of a run is logged at once, worded by the
 * caller (with the fix); while the failures go on, one summary line a minute; when a call works again, one line.
 */
export class FailureRuns {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /** A failed attempt of `who`, with `detail` (reason, endpoint…); `first` is called for the first of a run only. */
  failed(who: Failing, detail: Record<string, unknown>, first: () => FirstFailure): void {
    const now = this.clock.now();
    const run = this.runs.get(who.label);
    if (!run) {
      this.runs.set(who.label, { since: now, count: 1, detail, summarizedAt: now });
      const line = first();
      this.log[line.level]({ ...who.fields, ...detail }, line.msg);
      return;
    }
    run.count++;
    run.detail = detail;
    if (now - run.summarizedAt < FAILURE_SUMMARY_MS) return;
    run.summarizedAt = now;
    const counts = { failedCalls: run.count, sinceMs: now - run.since };
    this.log.warn({ ...who.fields, ...detail, ...counts }, `${who.label} still failing`);
  }

  /** A call of `who` worked: ends its run of failures, if any, with one line. */
  succeeded(who: Failing): void {
    const run = this.runs.get(who.label);
    if (!run) return;
    this.runs.delete(who.label);
    const counts = { failedCalls: run.count, sinceMs: this.clock.now() - run.since };
    this.log.info({ ...who.fields, ...counts }, `${who.label} answers again`);
  }
}
