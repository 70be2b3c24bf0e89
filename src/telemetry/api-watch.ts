import type { Clock } from '../clock.js';
import { errorCodeOf } from '../errors.js';
import type { Failure } from '../failure.js';
import { ApiError, NetworkError } from '../http/errors.js';
import type { LimiterEvent } from '../limit/types.js';
import type { Logger } from '../log.js';
import type { ApiName } from '../spec/apis.js';
import { FailureLines, type Failing, type Run } from './failure-lines.js';
import { RepeatLimit } from './repeat-limit.js';
import { callOutcome } from './outcome.js';
import type { Telemetry } from './telemetry.js';

export { FAILURE_SUMMARY_MS } from './failure-lines.js';

/** While answers of an API are "not found", their error line is repeated this often. */
export const NOT_FOUND_LINE_EVERY_MS = 10 * 60_000;

/** What every attempt of this process cost: the `--once` verdict and the online check read it. */
export interface CallTally {
  calls: number;
  quotaRejections: number;
  failures: number;
}

/** Where the APIs' runs of failures are kept: the one record /healthz, /metrics and `verify`'s give-up read too. */
export type ApiFailureRecord = Pick<Telemetry, 'apiCall'>;

/**
 * Watches every attempt sent to an API (the limiter's `call` events, so retries count), records it in `record` and
 * tells the API's run of failures from that record: its first failure at once — at error level when it needs an
 * operator (no server at the address, 401/403), else at warn — with the API, the endpoint and the reason
 * (ENOTFOUND, HTTP 401…): the limiter retries network errors for up to its deadline (minutes) with backoff, and a
 * wrong base URL or token would otherwise be silent that long. Retries go on per the limiter's policy; while they
 * fail, one summary line a minute; when the API answers again, one line says so (FailureLines, worded as the sink's
 * writes are). So the log names the start and count /healthz names, and both end at the same call. What the log
 * leaves out is a choice of lines, not another record: a 429 is a wait (no failure for either), and a refusal a
 * token renewal is about to cure gets an info line; the run it starts is told if a failure follows, ended silently if
 * the renewal cures it.
 */
export class ApiWatch {
  private readonly tallies = new Map<ApiName, CallTally>();

  /** "Not found" lines, repeated every NOT_FOUND_LINE_EVERY_MS per API (a deleted stream answers 404 each pass). */
  private readonly notFoundLines = new RepeatLimit<ApiName>(NOT_FOUND_LINE_EVERY_MS);
  /** "No access" lines, repeated as often, per API and account. */
  private readonly noAccessLines = new RepeatLimit<string>(NOT_FOUND_LINE_EVERY_MS);

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly record: ApiFailureRecord,
    /** The configured token source, named when a refusal is the operator's to fix. */
    private readonly tokenSource = 'api.token (CDN_TOKEN)',
    private readonly lines = new FailureLines(log, clock),
  ) {}

  /** One limiter event: each `call` is an attempt that succeeded or failed (with its error, classified). */
  observe(event: LimiterEvent): void {
    if (event.type !== 'call') return;
    this.count(event.api, event.failure);
    // A refusal of an account the token may not read: the API answers and the token lives, so no run of failures.
    const noAccess = event.error instanceof ApiError && event.error.noAccess;
    const effect = this.record.apiCall(event.api, callOutcome(event.status, event.code), noAccess || undefined);
    if (effect.kind === 'served') {
      this.lines.succeeded(watched(event.api), effect.ended);
      if (noAccess) this.refusedAccount(event.api, event.error as ApiError);
      else if (event.failure?.operator) this.notFound(event.api, event.error);
    } else if (effect.kind === 'failed') this.failed(event.api, event.error, event.failure, effect.run);
  }

  /**
   * An answered refusal an operator must look at (404: a wrong base URL path, an account or stream that is gone). Not a
   * failure of the API (it answers), so no run; but the only sign of a wrong path would otherwise be spans set aside
   * one by one: an error line at once, then at most one every NOT_FOUND_LINE_EVERY_MS per API.
   */
  private notFound(api: ApiName, err: unknown): void {
    if (!this.notFoundLines.due(api, this.clock.now())) return;
    const { reason, endpoint } = describeFailure(err);
    this.log.error(
      { event: 'not_found', api, endpoint, reason, code: errorCodeOf(err) },
      `${api} API answered ${reason} (not found): check api.baseUrl / CDN_BASE_URL and the configured accounts and ` +
        'streams; what it asked for is not collected while this lasts',
    );
  }

  /**
   * A refusal that means no access to one account (the token was proven alive, or a renewed one was refused too): no
   * login cures it, so one error line naming the API and the account at once, then at most one every
   * NOT_FOUND_LINE_EVERY_MS per API and account while it goes on.
   */
  private refusedAccount(api: ApiName, err: ApiError): void {
    const account = err.request.account ?? '';
    if (!this.noAccessLines.due(`${api} ${account}`, this.clock.now())) return;
    const { reason, endpoint } = describeFailure(err);
    this.log.error(
      { event: 'account_refused', api, account, endpoint, reason, code: errorCodeOf(err), refusal: 'no-access' },
      `${api} API refuses account ${account || '(none named)'} (${reason}), while the same token is served ` +
        'elsewhere or was just renewed: that account has no access to this API. No new token is fetched; check the ' +
        "configured accounts and the token's rights. Its data is not collected while this lasts",
    );
  }

  /** Calls per API so far (attempts, 429s among them, failures). */
  tally(api: ApiName): CallTally {
    return { ...(this.tallies.get(api) ?? { calls: 0, quotaRejections: 0, failures: 0 }) };
  }

  total(): CallTally {
    const sum = { calls: 0, quotaRejections: 0, failures: 0 };
    for (const t of this.tallies.values()) {
      sum.calls += t.calls;
      sum.quotaRejections += t.quotaRejections;
      sum.failures += t.failures;
    }
    return sum;
  }

  private count(api: ApiName, failure: Failure | undefined): void {
    let t = this.tallies.get(api);
    if (!t) this.tallies.set(api, (t = { calls: 0, quotaRejections: 0, failures: 0 }));
    t.calls++;
    if (failure) t.failures++;
    if (failure?.class === 'quota') t.quotaRejections++;
  }

  private failed(api: ApiName, err: unknown, failure: Failure | undefined, run: Run): void {
    const { reason, endpoint } = describeFailure(err);
    if (err instanceof ApiError && err.tokenRenewal === 'renewing') {
      // The token died (or may have): a new one is fetched and the call retried; only an uncured refusal is reported.
      const fields = { event: 'token_renewing', api, endpoint, reason };
      this.log.info(fields, `${api} API refused the token; renewing it and retrying the call once`);
      return;
    }
    this.lines.failed(watched(api), run, { endpoint, reason, code: errorCodeOf(err) }, () => ({
      // What an operator must fix (address, token) is an error; a 5xx or a timeout is often gone on the next try.
      level: failure?.operator ? 'error' : 'warn',
      msg:
        `${api} API call failed: ${reason}${hintFor(err, failure, this.tokenSource)}; ` +
        "retried per the limiter's policy, a summary each minute while it fails",
    }));
  }
}

function watched(api: ApiName): Failing {
  return { label: `${api} API`, fields: { api } };
}

/** Why an attempt failed, in the words of the log lines: `HTTP 500`, `ECONNREFUSED`, an error code. */
export function failureReason(err: unknown): string {
  return describeFailure(err).reason;
}

/** The reason (system code or HTTP status) and the redacted endpoint of a failed attempt. */
function describeFailure(err: unknown): { reason: string; endpoint: string } {
  const request = (err as { request?: { method: string; url: string } } | undefined)?.request;
  const endpoint = request ? `${request.method} ${request.url}` : 'unknown';
  if (err instanceof ApiError) return { reason: `HTTP ${err.status}`, endpoint };
  if (err instanceof NetworkError) return { reason: err.causeCode ?? 'network error', endpoint };
  return { reason: errorCodeOf(err), endpoint };
}

/** What fixes a failure an operator must act on, naming the setting. */
function hintFor(err: unknown, failure: Failure | undefined, tokenSource: string): string {
  if (err instanceof NetworkError && err.causeCode === 'ENOTFOUND')
    return ' (host not found: check api.baseUrl / CDN_BASE_URL)';
  if (err instanceof NetworkError && err.causeCode === 'ECONNREFUSED')
    return ' (nothing listens there: check api.baseUrl / CDN_BASE_URL)';
  if (err instanceof ApiError && failure?.class === 'token') {
    if (err.tokenRenewal === 'renewed')
      return ` (refused again with a renewed token from ${tokenSource}: that account has no access to it)`;
    return ` (the token is refused: check ${tokenSource})`;
  }
  return '';
}
