import { apiStatusClass } from '../failure.js';
import { API_CONDITION, SINK_CONDITION } from '../state/daemon-status.js';
import type { FailureKind } from './outcome.js';
import { counted } from '../words.js';

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
 * by /healthz, /metrics, `status` (daemon-status.json), `verify`'s give-up and the log's lines (api-watch.ts,
 * sink-watch.ts). A success forgets them: health asks "has every call failed for this long", not "did any fail".
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

/**
 * The runs /healthz names as of `now`, by condition (`api:<name>`, `sink`): an API whose token was refused, or that
 * failed every call for `apiAfterMs` (and at least MIN_FAILURES calls); a sink none of whose writes succeeded for
 * `sinkAfterMs`. `status` shows these runs too (daemon-status.json), so both name the same ones.
 */
export function failingRuns(
  apis: FailureTracker,
  sink: FailureTracker,
  limits: FailingLimits,
  now: number,
): Record<string, Readonly<FailingSince>> {
  const out: Record<string, Readonly<FailingSince>> = {};
  for (const [api, f] of apis.entries()) {
    const failedLongEnough = now - f.since >= limits.apiAfterMs && f.failures >= MIN_FAILURES;
    if (isRefused(f, limits) || failedLongEnough) out[`${API_CONDITION}${api}`] = f;
  }
  const s = sink.get('sink');
  if (s && now - s.since >= limits.sinkAfterMs) out[SINK_CONDITION] = s;
  return out;
}

/** The /healthz conditions of failing APIs (`api:<name>`) and a failing sink (`sink`), with a reason each. */
export function failingConditions(
  apis: FailureTracker,
  sink: FailureTracker,
  limits: FailingLimits,
  now: number,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, f] of Object.entries(failingRuns(apis, sink, limits, now))) {
    const failedFor = `failed for ${seconds(now - f.since)} (${failureCount(name, f.failures)} since ${iso(f.since)}`;
    if (name === SINK_CONDITION) out[name] = `every write ${failedFor})`;
    else if (isRefused(f, limits)) {
      out[name] =
        `every call refused with ${String(f.last)} since ${iso(f.since)} (${failureCount(name, f.refusals)}): the ` +
        `token is wrong, expired or lacks rights`;
    } else out[name] = `every call ${failedFor}, last: ${String(f.last)})`;
  }
  return out;
}

/** What failed, by its condition: `sink`, `metrics API` (as the log's lines name them). */
export function failingName(condition: string): string {
  return condition === SINK_CONDITION ? 'sink' : `${condition.slice(API_CONDITION.length)} API`;
}

/** Failures of a condition counted as /healthz counts them: `3 calls`, `2 failed writes`. */
export function failureCount(condition: string, failures: number): string {
  return counted(failures, condition === SINK_CONDITION ? 'failed write' : 'call');
}

const isRefused = (f: Readonly<FailingSince>, limits: FailingLimits) => f.refusals >= limits.refusalsToFail;
const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
