import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { FailingSince } from './failing.js';

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

/** What the lines read of a run of failures: since when, and how many (a FailureTracker entry). */
export type Run = Pick<FailingSince, 'since' | 'failures'>;

/**
 * The lines of runs of failures of the dependencies of a process (each API, the sink), logged alike: a retry loop
 * would otherwise print a line per attempt, or nothing for minutes. The first failure of a run is logged at once,
 * worded by the caller (with the fix); while the failures go on, one summary line a minute; when a call works again,
 * one line. The runs are the caller's record (a FailureTracker), read here, not kept a second time: the sink's is the
 * one /healthz and /metrics read, so the log cannot tell another start or count.
 */
export class FailureLines {
  /** When each run's last line was logged: when its next summary is due. */
  private readonly linedAt = new Map<string, number>();

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * A failed attempt of `who`, counted in `run` already, with `detail` (reason, endpoint…); `first` words the first
   * line of a run, and is called for it only.
   */
  failed(who: Failing, run: Run, detail: Record<string, unknown>, first: () => FirstFailure): void {
    const now = this.clock.now();
    if (run.failures === 1) {
      this.linedAt.set(who.label, now);
      const line = first();
      this.log[line.level]({ ...who.fields, ...detail }, line.msg);
      return;
    }
    if (now - (this.linedAt.get(who.label) ?? run.since) < FAILURE_SUMMARY_MS) return;
    this.linedAt.set(who.label, now);
    const counts = { failedCalls: run.failures, sinceMs: now - run.since };
    this.log.warn({ ...who.fields, ...detail, ...counts }, `${who.label} still failing`);
  }

  /** A call of `who` worked and ended `run` (none: nothing was failing, nothing to say). */
  succeeded(who: Failing, run: Run | undefined): void {
    this.linedAt.delete(who.label);
    if (!run) return;
    const counts = { failedCalls: run.failures, sinceMs: this.clock.now() - run.since };
    this.log.info({ ...who.fields, ...counts }, `${who.label} answers again`);
  }
}
