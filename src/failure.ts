/**
 * What a 401/403 says about the token, decided per API from what its spec documents (src/http/refusal.ts):
 * - `token`: the text names a dead token (DVR `Token is expired`, statistics `token is invalid`);
 * - `possible`: a 401/403 whose text is not documented (metrics publishes none): it may be an expired token.
 * Both earn one renewal and one retry; a refusal of the renewed token is "no access".
 */
export type TokenRefusal = 'token' | 'possible';

/**
 * What a failure asks of its caller, decided once for every error (the limiter, the HTTP client, the collector, the
 * sink's writes, telemetry and the log lines all ask here) by the error's own class (`FAILURE`):
 * - `transient`: try again after a backoff (network, timeout, 5xx, a body cut off);
 * - `quota`: the server's rate limit (429): wait as it asks, then try again;
 * - `token`: the credentials are refused; a renewal may cure it (`refusal`), else an operator must;
 * - `span`: the request itself is at fault and would fail the same again: set that span aside, go on with the rest;
 * - `final`: no retry helps now; the call (and the pass) ends with it.
 */
export type FailureClass = 'transient' | 'quota' | 'token' | 'span' | 'final';

export interface Failure {
  class: FailureClass;
  /** Retries cannot cure it until the configuration or the account changes: reported at error level. */
  operator: boolean;
  /** The wait the failure asks for before another try (a valid Retry-After, a login's backoff), uncapped. */
  waitMs?: number;
  /** A 401/403 of an API: `token` when its text names a dead token, `possible` when it may; either earns a renewal. */
  refusal?: TokenRefusal;
}

/** A connection that broke midway or a slow answer: the address is right, the next try may pass. */
export const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
]);

/**
 * The HTTP layer's refusals of a call's arguments (undici's, Node's): nothing was sent and the same call is refused
 * again; a configuration or programming error for an operator, never retried.
 */
export const HTTP_ARGUMENT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_URL',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_INVALID_CHAR',
]);

/** An API's non-2xx status. 404 also means a wrong base URL: every call would get it. */
export function apiStatusClass(status: number): { class: FailureClass; operator: boolean } {
  if (status === 429) return { class: 'quota', operator: false };
  if (status === 401 || status === 403) return { class: 'token', operator: true };
  if (status >= 500) return { class: 'transient', operator: false };
  if (status >= 400) return { class: 'span', operator: status === 404 };
  return { class: 'final', operator: false };
}

/** A database's answer to a write: refused content (400, 413, 422) is dead-lettered, like a span set aside. */
export function sinkStatusClass(status: number): FailureClass {
  if (status === 429) return 'quota';
  if (status === 408 || status >= 500) return 'transient';
  if (status === 400 || status === 413 || status === 422) return 'span';
  return status === 401 || status === 403 ? 'token' : 'final';
}

/**
 * The method by which an error class declares how it fails: `classify` asks the error itself, so this file knows none
 * of the layers (auth, http, limit, sink) whose errors it classifies. A subclass inherits its parent's answer.
 */
export const FAILURE: unique symbol = Symbol('failure');

/** An error that declares how it fails. */
export interface DeclaresFailure {
  [FAILURE](): Failure;
}

/** A failure worth another try after a backoff. */
export const TRANSIENT: Failure = { class: 'transient', operator: false };
/** The span's own fault: set aside. */
export const SPAN_FAULT: Failure = { class: 'span', operator: false };
/** Nothing helps now; what an error that declares nothing gets. */
export const FINAL: Failure = { class: 'final', operator: false };

/** How `err` failed and what it asks for (see FailureClass): as its class declares, else final. */
export function classify(err: unknown): Failure {
  return declaresFailure(err) ? err[FAILURE]() : FINAL;
}

function declaresFailure(err: unknown): err is DeclaresFailure {
  return typeof err === 'object' && err !== null && typeof (err as Partial<DeclaresFailure>)[FAILURE] === 'function';
}

/** Worth another try by whoever made the call: the limiter for API calls, the write retry for the sink. */
export function isRetryable(err: unknown): boolean {
  return retried(classify(err).class);
}

/** The classes a caller tries again: after a backoff, or the wait the server asked for. */
export function retried(failureClass: FailureClass): boolean {
  return failureClass === 'transient' || failureClass === 'quota';
}

/** A span's own fault: it is set aside so the spans after it can go on. */
export function isSpanFault(err: unknown): boolean {
  return classify(err).class === 'span';
}

/** A wait of `amount` units of `unitMs` (a Retry-After in seconds), when usable. */
export function waitOf(amount: number | undefined, unitMs = 1000): { waitMs?: number } {
  const ms = amount === undefined ? Number.NaN : amount * unitMs;
  // Negative or non-finite: as if absent.
  return Number.isFinite(ms) && ms >= 0 ? { waitMs: ms } : {};
}

/** A call that got no answer, by its code: an argument refused is final; a refused address needs an operator. */
export function networkFailure(code: string | undefined): Failure {
  if (code !== undefined && HTTP_ARGUMENT_CODES.has(code)) return { class: 'final', operator: true };
  return { class: 'transient', operator: !TRANSIENT_NETWORK_CODES.has(code ?? '') };
}
