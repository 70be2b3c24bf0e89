import { ApiError } from '../../http/errors.js';
import type { Span } from '../../spans.js';
import { MINUTE } from '../../time.js';

/**
 * The longest period, in whole minutes, that a 422 of the metrics API states when it refuses one as too long
 * ("Period must be from 1 to 10 minutes", "Period must be 1 minute", "data is returned for a 1-minute period");
 * undefined when the error is no such refusal or states no limit. Spec 001 allows 1 to 10 minutes; a stored copy of
 * the vendor's page allows 1, so the service's own word decides.
 */
export function statedPeriodLimit(err: unknown): number | undefined {
  if (!(err instanceof ApiError) || err.status !== 422 || err.request.api !== 'metrics') return undefined;
  const text = err.description ?? '';
  if (!/\b(period|interval)\b/i.test(text) || !/minute/i.test(text)) return undefined;
  const numbers = [...text.matchAll(/\d+/g)].map((m) => Number(m[0]));
  const limit = Math.max(...numbers);
  return Number.isSafeInteger(limit) && limit >= 1 ? limit : undefined;
}

/**
 * What the runtime learnt of the longest metrics period the service takes, shared by every metrics job: unknown until
 * a 422 states a limit shorter than a window, then that limit for good (`onLearnt` runs once per limit, to say so).
 */
export class MetricsPeriodLimit {
  private minutes: number | undefined;

  constructor(private readonly onLearnt: (limitMinutes: number, reason: string) => void = () => {}) {}

  /** The longest period a call may cover, in ms (undefined: as configured). */
  get maxMs(): number | undefined {
    return this.minutes === undefined ? undefined : this.minutes * MINUTE;
  }

  /** Takes the limit `err` states when it is shorter than `readMs` (the period refused); true when it did. */
  learnFrom(err: unknown, readMs: number): boolean {
    const limit = statedPeriodLimit(err);
    if (limit === undefined || limit * MINUTE >= readMs) return false;
    if (this.minutes !== undefined && this.minutes <= limit) return true; // learnt already (a call in flight)
    this.minutes = limit;
    this.onLearnt(limit, ((err as ApiError).description ?? '').slice(0, 200));
    return true;
  }

  /** `span` cut into calls the service takes: one when it is within the limit (or none is known). */
  calls(span: Span): Span[] {
    const max = this.maxMs;
    if (max === undefined || span.to - span.from <= max) return [span];
    const out: Span[] = [];
    for (let from = span.from; from < span.to; from += max) out.push({ from, to: Math.min(from + max, span.to) });
    return out;
  }
}
