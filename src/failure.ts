import { LoginError, TokenFileError } from './auth/errors.js';
import { tokenRefusalOf, type TokenRefusal } from './auth/refusal.js';
import { ParameterError } from './errors.js';
import {
  ApiError,
  BodyTooLargeError,
  ContentEncodingError,
  NetworkError,
  PagingError,
  RequestArgumentError,
  ResponseFormatError,
  TimeoutError,
} from './http/errors.js';
import { LimiterClosedError, LimiterDeadlineError } from './limit/errors.js';
import { SinkError } from './sink/errors.js';

/**
 * What a failure asks of its caller, decided once for every error (the limiter, the HTTP client, the collector, the
 * sink's writes, telemetry and the log lines all ask here):
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

type Row<E> = [new (...args: never[]) => E, (err: E) => Failure];
const row = <E>(type: Row<E>[0], decide: Row<E>[1]): Row<unknown> => [type, decide as Row<unknown>[1]];

const transient: Failure = { class: 'transient', operator: false };
const span: Failure = { class: 'span', operator: false };
const final: Failure = { class: 'final', operator: false };

/** The table: the first row whose class the error is an instance of decides; anything else is final. */
const ROWS: ReadonlyArray<Row<unknown>> = [
  row(ApiError, (e) => ({ ...apiStatusClass(e.status), ...waitOf(e.retryAfterSec), ...refusalOf(e) })),
  row(RequestArgumentError, () => ({ class: 'final', operator: true })),
  row(NetworkError, (e) => networkFailure(e.causeCode)),
  row(TimeoutError, () => transient),
  // A body that is not JSON was usually cut off; JSON that does not fit the schema would come back the same.
  row(ResponseFormatError, (e) => (e.kind === 'not-json' ? transient : span)),
  // A corrupt stream is a body cut off; a coding the client does not know would come back on every call.
  row(ContentEncodingError, (e) => (e.problem === 'corrupt' ? transient : final)),
  row(BodyTooLargeError, () => span),
  row(PagingError, () => span),
  row(ParameterError, () => span),
  row(LoginError, (e) => ({ class: 'token', operator: false, ...waitOf(e.retryInMs, 1) })),
  row(TokenFileError, () => ({ class: 'token', operator: false })),
  row(LimiterDeadlineError, () => transient),
  row(LimiterClosedError, () => final),
  row(SinkError, (e) => sinkFailure(e)),
];

/** How `err` failed and what it asks for: see FailureClass. */
export function classify(err: unknown): Failure {
  for (const [type, decide] of ROWS) if (err instanceof type) return decide(err);
  return final;
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
function waitOf(amount: number | undefined, unitMs = 1000): { waitMs?: number } {
  const ms = amount === undefined ? Number.NaN : amount * unitMs;
  // Negative or non-finite: as if absent.
  return Number.isFinite(ms) && ms >= 0 ? { waitMs: ms } : {};
}

function refusalOf(err: ApiError): { refusal?: TokenRefusal } {
  const refusal = tokenRefusalOf(err);
  return refusal ? { refusal } : {};
}

function sinkFailure(err: SinkError): Failure {
  const failureClass = err.status === undefined ? (err.retryable ? 'transient' : 'final') : sinkStatusClass(err.status);
  const code = causeCode(err);
  if (code !== undefined && HTTP_ARGUMENT_CODES.has(code)) return networkFailure(code);
  // Refused for good, or nothing listens at the address: only the database or the config changing cures it.
  const operator = !retried(failureClass) || (code !== undefined && !TRANSIENT_NETWORK_CODES.has(code));
  return { class: failureClass, operator };
}

/** A call that got no answer, by its code: an argument refused is final; a refused address needs an operator. */
function networkFailure(code: string | undefined): Failure {
  if (code !== undefined && HTTP_ARGUMENT_CODES.has(code)) return { class: 'final', operator: true };
  return { class: 'transient', operator: !TRANSIENT_NETWORK_CODES.has(code ?? '') };
}

/** The system code (ECONNREFUSED) behind a sink's failure; a timeout counts as ETIMEDOUT. */
export function causeCode(err: SinkError): string | undefined {
  const cause = err.cause as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = cause?.code ?? cause?.cause?.code;
  if (typeof code === 'string') return code;
  return /timed out/.test(err.message) ? 'ETIMEDOUT' : undefined;
}
