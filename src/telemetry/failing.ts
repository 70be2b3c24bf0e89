import { apiStatusClass } from '../failure.js';
import type { FailureKind } from './outcome.js';

/** How long, and how often, something has failed since it last worked. */
export interface FailingSince {
  since: number;
  failures: number;
  /** The last outcome: an HTTP status or a failure kind (APIs); the reason of the last failed write (the sink). */
  last: number | string | undefined;
  /** 401/403 answers among the failures. */
  refusals: number;
}

/**
 * What one call did to its API's run of failures (Telemetry.apiCall), for the lines that tell it (ApiWatch): counted
 * in `run` (which it started when `run.failures` is 1), ended `ended` (none: nothing was failing), or neither (a 429,
 * a wait the server asked for).
 */
export type CallEffect =
  | { kind: 'failed'; run: Readonly<FailingSince> }
  | { kind: 'served'; ended: Readonly<FailingSince> | undefined }
  | { kind: 'wait' };

/**
 * Failures of named dependencies (an API, the sink) since each last worked: the one record of what is failing, read
 * by /healthz, /metrics, `verify`'s give-up and the log's lines (api-watch.ts, sink-watch.ts). A success forgets
 * them: health asks "has every call failed for this long", not "did any fail".
 */
export class FailureTracker {
  private readonly failing = new Map<string, FailingSince>();

  /** A failure of `name`: starts its run or counts in it. Returns the run. */
  failed(name: string, now: number, last?: number | string): Readonly<FailingSince> {
    let entry = this.failing.get(name);
    if (entry) entry.failures++;
    else this.failing.set(name, (entry = { since: now, failures: 1, last, refusals: 0 }));
    entry.last = last;
    if (typeof last === 'number' && isRefusal(last)) entry.refusals++;
    return entry;
  }

  /** `name` worked: ends its run of failures. Returns the run it ended, if there was one. */
  succeeded(name: string): Readonly<FailingSince> | undefined {
    const entry = this.failing.get(name);
    this.failing.delete(name);
    return entry;
  }

  get(name: string): FailingSince | undefined {
    return this.failing.get(name);
  }

  entries(): Array<[string, FailingSince]> {
    return [...this.failing];
  }
}

/** When failures become a /healthz condition (config `http.apiFailingAfter`, `http.sinkFailingAfter`). */
export interface FailingLimits {
  /** An API that failed every call but 429s for this long (and at least MIN_FAILURES calls) is unhealthy. */
  apiAfterMs: number;
  /** A sink none of whose writes succeeded for this long is unhealthy. */
  sinkAfterMs: number;
  /**
   * Consecutive 401/403 answers that make an API unhealthy at once: 2 when the token can be renewed (the first
   * refusal triggers a renewal, the second comes after it), 1 for a fixed token.
   */
  refusalsToFail: number;
}

export const DEFAULT_FAILING_LIMITS: FailingLimits = {
  apiAfterMs: 5 * 60_000,
  sinkAfterMs: 2 * 60_000,
  refusalsToFail: 1,
};

/** One failed call is a blip, even on an API called once an hour; the limiter's retries make more when it is down. */
export const MIN_FAILURES = 3;

/**
 * A call the API served: a success, or a status that blames the request (a refused parameter, a DVR stream that is
 * gone: the span's fault, set aside on its own), not the API failing. Statuses are classed by src/failure.ts.
 */
export function isServed(outcome: number | FailureKind): boolean {
  return typeof outcome === 'number' && (outcome < 400 || apiStatusClass(outcome).class === 'span');
}

/** The server's quota (429): a wait it asks for, neither a failure nor a served call. */
export function isQuotaWait(outcome: number | FailureKind): boolean {
  return typeof outcome === 'number' && apiStatusClass(outcome).class === 'quota';
}

/** A refusal of the credentials (401/403). */
export function isRefusal(outcome: number | FailureKind): boolean {
  return typeof outcome === 'number' && outcome >= 400 && apiStatusClass(outcome).class === 'token';
}

/** The /healthz conditions of failing APIs (`api:<name>`) and a failing sink (`sink`), with a reason each. */
export function failingConditions(
  apis: FailureTracker,
  sink: FailureTracker,
  limits: FailingLimits,
  now: number,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [api, f] of apis.entries()) {
    const refused = f.refusals;
    if (refused >= limits.refusalsToFail) {
      out[`api:${api}`] =
        `every call refused with ${String(f.last)} since ${iso(f.since)} (${plural(refused, 'call')}): the token is ` +
        `wrong, expired or lacks rights`;
    } else if (now - f.since >= limits.apiAfterMs && f.failures >= MIN_FAILURES) {
      out[`api:${api}`] =
        `every call failed for ${seconds(now - f.since)} (${plural(f.failures, 'call')} since ${iso(f.since)}, last: ` +
        `${String(f.last)})`;
    }
  }
  const s = sink.get('sink');
  if (s && now - s.since >= limits.sinkAfterMs) {
    out.sink =
      `every write failed for ${seconds(now - s.since)} (${plural(s.failures, 'failed write')} since ` +
      `${iso(s.since)})`;
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
