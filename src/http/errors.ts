import { CollectorError } from '../errors.js';
import {
  apiStatusClass,
  FAILURE,
  type Failure,
  FINAL,
  networkFailure,
  SPAN_FAULT,
  TRANSIENT,
  waitOf,
} from '../failure.js';
import type { ApiName } from '../spec/apis.js';
import type { RequestTarget } from '../spec/inventory.js';
import { redactSecrets, redactValue } from '../secrets.js';
import { tokenRefusal } from './refusal.js';

/**
 * Typed errors of the request layer. Each declares how it fails (`FAILURE`, src/failure.ts: retry, skip, report),
 * and never the token: `request` holds a redacted description of the call that failed, and every message and every
 * piece of a server's answer kept on an error passes through the secret redactor (src/secrets.ts) — a server may
 * repeat the token back.
 */

/** The call that failed, as safe to log: method, redacted URL, API. */
export interface RequestInfo {
  api: RequestTarget;
  /** The account the call was about, when it names one. */
  account?: string;
  method: string;
  url: string;
}

/** The API answered with a non-2xx status. */
export class ApiError extends CollectorError {
  override readonly code = 'CDN_ERR_API';
  readonly status: number;
  /** The API's own `status` text (e.g. `Forbidden`), when the body had one. */
  readonly apiStatus: string | undefined;
  /** The API's `description` (or the statistics APIs' error data), when the body had one. */
  readonly description: string | undefined;
  /** DVR: nodes on which a deletion failed (HTTP 500). */
  readonly failedHosts: string[] | undefined;
  /** Seconds from a Retry-After header (429, 503). */
  readonly retryAfterSec: number | undefined;
  readonly body: unknown;
  readonly request: RequestInfo;
  /**
   * A refusal of the token: `renewing` when a renewal and a retry follow (not yet an operator's problem), `renewed`
   * when the token refused was the renewed one (the retry's); set by the HttpClient.
   */
  tokenRenewal: 'renewing' | 'renewed' | undefined;
  /**
   * A refusal that means the account may not be read, not a dead token: a call with the same token succeeded that was
   * sent after it, or the renewed token was refused too (set by the HttpClient). No new token cures it.
   */
  noAccess = false;

  constructor(init: {
    status: number;
    body: unknown;
    request: RequestInfo;
    retryAfterSec?: number | undefined;
  }) {
    const body = redactValue(init.body);
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const apiStatus = typeof b.status === 'string' ? b.status : undefined;
    const description =
      typeof b.description === 'string'
        ? b.description
        : typeof b.data === 'string'
          ? b.data
          : typeof b.message === 'string'
            ? b.message
            : typeof body === 'string' && body.length > 0
              ? body.slice(0, 300)
              : undefined;
    const failed = Array.isArray(b.failed_hosts) ? b.failed_hosts.map(String) : undefined;
    super(
      `${init.request.method} ${init.request.url} → HTTP ${init.status}` +
        (description ? `: ${description}` : apiStatus ? `: ${apiStatus}` : '') +
        (failed ? ` (failed hosts: ${failed.join(', ')})` : ''),
    );
    this.status = init.status;
    this.apiStatus = apiStatus;
    this.description = description;
    this.failedHosts = failed;
    this.retryAfterSec = init.retryAfterSec;
    this.body = body;
    this.request = init.request;
  }
  [FAILURE](): Failure {
    const refusal = tokenRefusal(this.request.api, this.status, this.description);
    return { ...apiStatusClass(this.status), ...waitOf(this.retryAfterSec), ...(refusal ? { refusal } : {}) };
  }
}

/** The connection failed (reset, refused, DNS) before a complete response arrived. */
export class NetworkError extends CollectorError {
  override readonly code = 'CDN_ERR_NETWORK';
  constructor(
    readonly request: RequestInfo,
    /** The failure's own code (`ECONNRESET`, `UND_ERR_SOCKET`), when it had one. */
    readonly causeCode: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`${request.method} ${request.url} failed: ${causeCode ?? 'network error'}${networkHint(causeCode)}`, options);
  }
  [FAILURE](): Failure {
    return networkFailure(this.causeCode);
  }
}

/**
 * The HTTP layer refused the call's arguments before sending anything (a header value it cannot carry, an invalid
 * URL): a configuration or programming error, which the same call meets again every time, not network weather.
 */
export class RequestArgumentError extends CollectorError {
  override readonly code = 'CDN_ERR_REQUEST_ARGUMENT';
  constructor(
    readonly request: RequestInfo,
    readonly problem: string,
    /** The HTTP layer's own code (`UND_ERR_INVALID_ARG`), when it refused the call. */
    readonly causeCode?: string,
  ) {
    super(`${request.method} ${request.url} cannot be sent: ${redactSecrets(problem)}`);
  }
  [FAILURE](): Failure {
    return { class: 'final', operator: true };
  }
}

/** What a failure code most likely means about the configured URL, when it says something about it. */
function networkHint(causeCode: string | undefined): string {
  // OpenSSL's words when the server answers plain HTTP to a TLS handshake.
  if (causeCode === 'ERR_SSL_WRONG_VERSION_NUMBER' || causeCode === 'ERR_SSL_PACKET_LENGTH_TOO_LONG')
    return ' (an https:// URL to a server that speaks plain http: write the URL with http://)';
  return '';
}

/** No complete response within the configured timeout. */
export class TimeoutError extends CollectorError {
  override readonly code = 'CDN_ERR_TIMEOUT';
  constructor(
    readonly request: RequestInfo,
    readonly timeoutMs: number,
  ) {
    super(`${request.method} ${request.url} timed out after ${timeoutMs} ms`);
  }
  [FAILURE](): Failure {
    return TRANSIENT;
  }
}

/**
 * What was wrong with a 2xx body: `not-json` (cut off, an HTML page from a proxy: usually transient) or `schema` (valid
 * JSON that does not fit the API's schema or echoes another request: the same answer again, so permanent for that
 * request).
 */
export type ResponseFormatKind = 'not-json' | 'schema';

/** A 2xx response whose body is not JSON or does not match the API's schema. */
export class ResponseFormatError extends CollectorError {
  override readonly code = 'CDN_ERR_RESPONSE_FORMAT';
  readonly problem: string;
  readonly bodyExcerpt: string;
  constructor(
    readonly request: RequestInfo,
    problem: string,
    bodyExcerpt: string,
    readonly kind: ResponseFormatKind = 'schema',
  ) {
    super(`${request.method} ${request.url}: malformed response: ${problem}`);
    // Schema messages quote received values (`received '…'`), which may be anything the server sent.
    this.problem = redactSecrets(problem);
    this.bodyExcerpt = redactSecrets(bodyExcerpt);
  }
  // A body that is not JSON was usually cut off; JSON that does not fit the schema would come back the same.
  [FAILURE](): Failure {
    return this.kind === 'not-json' ? TRANSIENT : SPAN_FAULT;
  }
}

/**
 * A response body larger than the configured cap (`api.maxBodyBytes`): refused on its content-length or abandoned once
 * the bytes read passed the cap, so one huge answer cannot exhaust memory. Not retryable: the same call would get the
 * same body; the span fails with this reason.
 */
export class BodyTooLargeError extends CollectorError {
  override readonly code = 'CDN_ERR_BODY_TOO_LARGE';
  constructor(
    readonly request: RequestInfo,
    readonly status: number,
    readonly maxBytes: number,
    /** The content-length the server declared, when it declared one over the cap. */
    readonly declaredBytes: number | undefined,
    /** Bytes read before giving up (0 when refused on the declared length). */
    readonly readBytes: number,
  ) {
    super(
      `${request.method} ${request.url} → HTTP ${status}: response body ` +
        (declaredBytes !== undefined ? `declares ${declaredBytes} bytes` : `passed ${readBytes} bytes`) +
        `, over the ${maxBytes}-byte cap (api.maxBodyBytes)`,
    );
  }
  [FAILURE](): Failure {
    return SPAN_FAULT;
  }
}

/**
 * A body in a Content-Encoding the client cannot decode. A coding it does not know (`unsupported`) would come back on
 * every call, so it is not retried: the pass ends naming it, and the next pass asks again. A compressed stream that is
 * corrupt or cut off (`corrupt`) is retried like any body cut off in transit. Thrown by the body reader without the
 * call (`request`), which the client adds.
 */
export class ContentEncodingError extends CollectorError {
  override readonly code = 'CDN_ERR_CONTENT_ENCODING';
  constructor(
    readonly coding: string,
    readonly problem: 'unsupported' | 'corrupt',
    readonly detail: string,
    readonly request?: RequestInfo,
    readonly status?: number,
  ) {
    super(request ? `${request.method} ${request.url} → HTTP ${status}: ${detail}` : detail);
  }

  /** The same failure, naming the call it broke. */
  of(request: RequestInfo, status: number): ContentEncodingError {
    return new ContentEncodingError(this.coding, this.problem, this.detail, request, status);
  }
  // A corrupt stream is a body cut off; a coding the client does not know would come back on every call.
  [FAILURE](): Failure {
    return this.problem === 'corrupt' ? TRANSIENT : FINAL;
  }
}

/**
 * A paged read that would not end or would be incomplete: the server repeated a page (it ignores `offset`), or the
 * read passed `api.maxPages`. Not retryable: the same server answers the same way; the span fails with this reason.
 */
export class PagingError extends CollectorError {
  override readonly code = 'CDN_ERR_PAGING';
  constructor(
    readonly api: ApiName,
    readonly endpoint: string,
    readonly reason: 'repeated' | 'too-many-pages',
    readonly pages: number,
    detail: string,
  ) {
    super(`${api} ${endpoint}: paging stopped: ${detail}`);
  }
  [FAILURE](): Failure {
    return SPAN_FAULT;
  }
}
