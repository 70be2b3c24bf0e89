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

/** What the lines read of a run of failures: since when, and how many (a FailureTracker entry, one object a run). */
export type Run = Pick<FailingSince, 'since' | 'failures'>;

/**
 * The lines of runs of failures of the dependencies of a process (each API, the sink), logged alike: a retry loop
 * would otherwise print a line per attempt, or nothing for minutes. The first failure told of a run is logged at once,
 * worded by the caller (with the fix); while the failures go on, one summary line a minute; when a call works again,
 * one line. Every line carries the run's start and count. The runs are telemetry's record (a FailureTracker), read
 * here, not kept a second time, so the log cannot tell another start or count than /healthz and /metrics. The caller
 * decides which failures to tell (not a refusal a token renewal is about to cure): a run ends silently if none was.
 */
export class FailureLines {
  /** When each run's last line was logged (its next summary is due a minute later); absent: not told yet. */
  private readonly linedAt = new WeakMap<Run, number>();

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
    const linedAt = this.linedAt.get(run);
    if (linedAt !== undefined && now - linedAt < FAILURE_SUMMARY_MS) return;
    this.linedAt.set(run, now);
    const opening = linedAt === undefined;
    const fields = { event: opening ? 'failing' : 'still_failing', ...who.fields, ...detail, ...counts(run, now) };
    const line: FirstFailure = opening ? first() : { level: 'warn', msg: `${who.label} still failing` };
    this.log[line.level](fields, line.msg);
  }

  /** A call of `who` worked and ended `run` (none: nothing was failing; not told: nothing to say). */
  succeeded(who: Failing, run: Run | undefined): void {
    if (!run || !this.linedAt.has(run)) return;
    this.linedAt.delete(run);
    this.log.info(
      { event: 'answers_again', ...who.fields, ...counts(run, this.clock.now()) },
      `${who.label} answers again`,
    );
  }
}

/** A run as every line names it: failures so far, since when (as /healthz words it), and for how long. */
function counts(run: Run, now: number) {
  return { failedCalls: run.failures, since: new Date(run.since).toISOString(), sinceMs: now - run.since };
}
