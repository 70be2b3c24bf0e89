/**
 * Time windows of collection jobs: pure functions over UTC epoch milliseconds, all spans half-open [from, to).
 *
 * A job's time axis is cut into windows aligned to multiples of `stepMs` since the epoch. A window is collectable
 * once `now ≥ window.to + delayMs`. One API call reads up to `maxSpanMs` of consecutive windows (a "span").
 * Windows are read whole or not at all: a range end that is not aligned is rounded inwards, never into half a window.
 */
import { ParameterError } from '../errors.js';
import type { Span } from '../spans.js';
import type { WindowRule } from '../contracts/window-rule.js';
import { floorTo, MINUTE } from '../time.js';

export type { Span } from '../spans.js';
export type { WindowRule } from '../contracts/window-rule.js';

/** How far behind now a job is when fully caught up: a window is read `delayMs` after it closes, and lasts `stepMs`. */
export function builtInLagMs(rule: WindowRule): number {
  return rule.delayMs + rule.stepMs;
}

export interface RuleValidation {
  /** The API takes times at minute precision only, so windows must be whole minutes. */
  wholeMinutes?: boolean;
  /** Names the rule in error messages (e.g. `jobs.statistic`). */
  name?: string;
}

/** Throws a ParameterError naming the offending field unless the rule is usable; returns the rule. */
export function validateRule<R extends WindowRule>(rule: R, options: RuleValidation = {}): R {
  const field = (f: string) => (options.name ? `${options.name}.${f}` : f);
  const { stepMs, delayMs, maxSpanMs } = rule;
  if (!Number.isSafeInteger(stepMs) || stepMs <= 0) {
    throw new ParameterError(field('stepMs'), `must be a positive whole number of milliseconds, got ${stepMs}`);
  }
  if (options.wholeMinutes && stepMs % MINUTE !== 0) {
    throw new ParameterError(field('stepMs'), `must be whole minutes (the API has minute precision), got ${stepMs} ms`);
  }
  if (!Number.isSafeInteger(delayMs) || delayMs < 0) {
    throw new ParameterError(field('delayMs'), `must be a whole number of milliseconds ≥ 0, got ${delayMs}`);
  }
  if (!Number.isSafeInteger(maxSpanMs) || maxSpanMs < stepMs || maxSpanMs % stepMs !== 0) {
    throw new ParameterError(
      field('maxSpanMs'),
      `must be a multiple of the window (${stepMs} ms) and at least one window, got ${maxSpanMs}`,
    );
  }
  return rule;
}

export function ceilToStep(ms: number, stepMs: number): number {
  return Math.ceil(ms / stepMs) * stepMs;
}

/**
 * The end of the newest collectable window at `now`: window [a, a + step) is collectable iff a + step + delay ≤ now,
 * so the answer is floor((now − delay) / step) · step. Everything before it may be read.
 */
export function collectableEnd(rule: WindowRule, now: number): number {
  return floorTo(now - rule.delayMs, rule.stepMs);
}

/**
 * Cuts the whole windows of [from, to) into consecutive spans of at most `maxSpanMs`, oldest first. Spans start at
 * the first window and are cut greedily (fewest calls: quota is the scarce resource), so every span is aligned to
 * the step, never exceeds maxSpan and never crosses the range ends.
 */
export function spans(rule: WindowRule, from: number, to: number): Span[] {
  const start = ceilToStep(from, rule.stepMs);
  const end = floorTo(to, rule.stepMs);
  const out: Span[] = [];
  for (let cursor = start; cursor < end; cursor += rule.maxSpanMs) {
    out.push({ from: cursor, to: Math.min(cursor + rule.maxSpanMs, end) });
  }
  return out;
}

// ——— Rules of the four APIs ———

/** Spec (metrics): a period is 1 to 10 whole minutes. */
export const METRICS_MIN_MINUTES = 1;
export const METRICS_MAX_MINUTES = 10;
/** Spec (statistic v3): "statistics may lag by up to an hour". */
export const STATISTIC_DEFAULT_LAG_MS = 60 * MINUTE;
/** Not shown for stream views; chosen: 5 minutes (views are near-real-time), configurable. */
export const STREAMSTAT_DEFAULT_LAG_MS = 5 * MINUTE;
/** Not shown: how wide one statistics call may be. Chosen: one day of buckets per call, configurable. */
export const DEFAULT_BUCKET_SPAN_MS = 24 * 60 * MINUTE;
const DAY_MS = 24 * 60 * MINUTE;

/**
 * Metrics: windows of `windowMinutes` (1–10, whole minutes) read `delayMs` after they close; a span is exactly one
 * window, because the API takes a single 1–10 minute period per call.
 */
export function metricsRule(windowMinutes: number, delayMs = 0): WindowRule {
  if (!Number.isInteger(windowMinutes) || windowMinutes < METRICS_MIN_MINUTES || windowMinutes > METRICS_MAX_MINUTES) {
    throw new ParameterError(
      'window',
      `metrics windows must be ${METRICS_MIN_MINUTES}–${METRICS_MAX_MINUTES} whole minutes, got ${windowMinutes} min`,
    );
  }
  const stepMs = windowMinutes * MINUTE;
  return validateRule({ stepMs, delayMs, maxSpanMs: stepMs }, { wholeMinutes: true, name: 'metrics' });
}

/**
 * The rule of an API read in buckets: buckets of `granularityMs` that are final only `lagMs` (default: the API's)
 * after they end; one call covers up to `maxSpanMs` of buckets. See `bucketRule` for the accepted granularities.
 */
function bucketRuleOf(api: string, defaultLagMs: number) {
  return (granularityMs: number, lagMs = defaultLagMs, maxSpanMs = DEFAULT_BUCKET_SPAN_MS): WindowRule =>
    bucketRule(api, granularityMs, lagMs, maxSpanMs);
}

/** Traffic statistics (see `bucketRuleOf`). */
export const statisticRule = bucketRuleOf('statistic', STATISTIC_DEFAULT_LAG_MS);

/** Stream view statistics: the same shape as `statisticRule`, with its own default lag. */
export const streamstatRule = bucketRuleOf('streamstat', STREAMSTAT_DEFAULT_LAG_MS);

/**
 * Buckets must divide a day (PT1M, PT5M, PT15M, PT1H, P1D…): only then do epoch-aligned windows coincide with the
 * server's UTC buckets. Weeks start on Monday and months vary in length, so P1W/P1M/P1Y cannot be a fixed step.
 */
function bucketRule(api: string, granularityMs: number, lagMs: number, maxSpanMs: number): WindowRule {
  const wholeMinutes = Number.isSafeInteger(granularityMs) && granularityMs > 0 && granularityMs % MINUTE === 0;
  if (!wholeMinutes || DAY_MS % granularityMs !== 0) {
    throw new ParameterError(
      `${api}.granularity`,
      `must be whole minutes dividing a day evenly (PT1M, PT5M, PT15M, PT1H, P1D…), got ${granularityMs} ms`,
    );
  }
  return validateRule({ stepMs: granularityMs, delayMs: lagMs, maxSpanMs }, { wholeMinutes: true, name: api });
}

/**
 * Windows that have closed (`to ≤ now`) but are not final yet (`to + delayMs > now`), no older than `lookbackMs`,
 * as spans: read them early for fresh data, then re-read them once `collectableEnd` passes them.
 */
export function provisionalSpans(rule: WindowRule, now: number, lookbackMs: number): Span[] {
  const closedEnd = floorTo(now, rule.stepMs);
  const from = Math.max(collectableEnd(rule, now), now - lookbackMs);
  return spans(rule, from, closedEnd);
}
