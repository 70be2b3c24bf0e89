import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Point } from '../points.js';
import { describeRefusal, type Refusal } from '../sink/refusal.js';
import type { WriteResult } from '../sink/types.js';
import { RepeatLimit } from './repeat-limit.js';
import type { Telemetry } from './telemetry.js';

/** The /healthz condition while the database refuses a measurement's points for good. */
export const REFUSED_CONDITION = 'sink:refused';

/** While refusals of one cause and measurement go on, their error line is repeated this often (debug in between). */
export const REFUSAL_LOG_EVERY_MS = 10 * 60_000;

/**
 * Points the database refuses for good are dead-lettered by the sink; this makes each refusal loud: an error line
 * naming the cause and the fix, and the /healthz condition `sink:refused` per measurement, which a later write of that
 * measurement with nothing refused clears (a backfill's old points refused once do not keep a daemon unhealthy).
 */
export class RefusalReports {
  /** Measurement → what its last refusal said. */
  private readonly active = new Map<string, string>();
  /** Error lines by `cause measurement`: repeated every REFUSAL_LOG_EVERY_MS while the refusals go on. */
  private readonly lines = new RepeatLimit<string>(REFUSAL_LOG_EVERY_MS);

  constructor(
    private readonly telemetry: Telemetry,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly deadLetterPath: string | undefined,
  ) {}

  /** After a confirmed write of `points` (for `jobs`); returns how many of them were refused. */
  written(result: WriteResult, points: readonly Point[], jobs: string): number {
    const refusals = result.refusals ?? [];
    if (refusals.length === 0 && this.active.size === 0) return 0;
    const refusedNow = new Set(refusals.flatMap((r) => r.measurements));
    for (const r of refusals) this.report(r, jobs);
    if ([...this.active.keys()].some((m) => !refusedNow.has(m))) {
      for (const measurement of new Set(points.map((p) => p.measurement))) {
        if (refusedNow.has(measurement) || !this.active.delete(measurement)) continue;
        this.lines.forget((key) => key.endsWith(` ${measurement}`));
      }
    }
    const text = [...this.active].map(([m, said]) => `${m}: ${said}`).join('; ');
    this.telemetry.condition(REFUSED_CONDITION, text === '' ? undefined : text);
    return refusals.reduce((n, r) => n + r.points, 0);
  }

  private report(r: Refusal, jobs: string): void {
    const now = this.clock.now();
    let due = false;
    for (const m of r.measurements) {
      this.active.set(m, describeRefusal(r));
      due = this.lines.due(`${r.cause} ${m}`, now) || due;
    }
    const where = this.deadLetterPath === undefined ? {} : { deadLetters: this.deadLetterPath };
    this.log[due ? 'error' : 'debug'](
      {
        job: jobs,
        points: r.points,
        cause: r.cause,
        measurements: r.measurements,
        reason: r.reason,
        fix: r.fix,
        ...where,
      },
      `points refused by the database (${r.cause}), kept as dead letters: ${r.fix}`,
    );
  }
}
