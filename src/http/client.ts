import { Agent, request as undiciRequest, type Dispatcher } from './undici.js';
import type { ZodType } from 'zod';
import { DEFAULT_MAX_BODY_BYTES, readCapped } from './body.js';
import { ACCEPT_ENCODING } from './content-coding.js';
import { issueText, ListReader, type ListSpec } from './json-list.js';
import {
  ApiError,
  BodyTooLargeError,
  ContentEncodingError,
  NetworkError,
  RequestArgumentError,
  ResponseFormatError,
  TimeoutError,
  type RequestInfo,
} from './errors.js';
import { APIS, type ApiName } from '../spec/apis.js';
import type { RequestTarget } from '../spec/inventory.js';
import { isHeaderSafe, registerSecret, registerUrlSecrets, withoutUserinfo } from '../secrets.js';
import { accountOf, redact, toSearchParams, type Query } from './query.js';
import { HTTP_ARGUMENT_CODES } from '../failure.js';
import { TokenEvidence } from './token-evidence.js';
import { asTokenProvider, type TokenProvider } from './token-provider.js';
import { systemClock, type Clock } from '../clock.js';
import { parseRetryAfter } from './retry-after.js';
import { errorCode, excerpt, flattenHeaders, parseJson, sanitizeCause, untilAborted } from './exchange.js';

/** Where the token travels; only APIs whose descriptor allows it (the statistics APIs) take it in the query. */
export type TokenPlacement = 'header' | 'query';

export interface HttpClientOptions {
  baseUrl: string;
  /** A fixed token (CLI commands, tests) or a provider asked before every request (file, login). */
  token: string | TokenProvider;
  /** Whole-request deadline in ms (connect + headers + body). */
  timeoutMs?: number;
  /** For the APIs that accept it (`APIS[api].token`); the others always get the header. */
  tokenPlacement?: TokenPlacement;
  /** Shared connection pool; one is created (keep-alive) when omitted. */
  dispatcher?: Dispatcher;
  userAgent?: string;
  /**
   * Wraps every network call of an API: the collector passes its per-API limiter here (quota, retries), so the
   * limiter is the only gate to the network. Without it calls go straight out (CLI, tests of the clients).
   */
  gate?: Gate;
  /** Largest response body read, in bytes (default 32 MiB); per API overrides in `maxBodyBytesPerApi`. */
  maxBodyBytes?: number;
  maxBodyBytesPerApi?: Partial<Record<ApiName, number>>;
  /** What a Retry-After date is measured against: the clock of the limiter that waits it out (default: system). */
  clock?: Clock;
}

export type Gate = <R>(api: ApiName, send: () => Promise<R>) => Promise<R>;

export interface RequestSpec<T> {
  /** The API (gated: quota, retries) or the inventory (outside every quota: sent at once). */
  api: RequestTarget;
  /** The account the call reads or changes (default: the `account` query parameter), named when it is refused. */
  account?: string;
  method: 'GET' | 'DELETE';
  /** Path below the base URL, already encoded, e.g. `/app/metrics/v1/resources`. */
  path: string;
  query?: Query;
  body?: unknown;
  /** Schema of a 2xx body; the result is typed by its output (the input may differ: lenient parsing). */
  schema: ZodType<T>;
  /** Per-call override of the deadline. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * A list member of a 2xx body read element by element (json-list.ts): each is checked and handed to `onElement`
   * as it arrives, and `schema` checks the rest with the list left empty. Memory then holds one element, not the body.
   */
  list?: ListSpec<unknown>;
}

export interface ApiResponse<T> {
  status: number;
  headers: Record<string, string>;
  body: T;
  request: RequestInfo;
}

const TOKEN_HEADER = 'cdn-auth-token';
const TOKEN_QUERY = 'cdnauthtoken';

/**
 * The one request layer: base URL, token, timeouts, keep-alive pool, and the mapping of responses to typed errors.
 * It does not retry; retries belong to the limiter, which knows the quotas and deadlines.
 * Redirects are not followed (undici's default), so the token is never sent to another host.
 */
export class HttpClient {
  readonly baseUrl: string;
  private readonly tokens: TokenProvider;
  private readonly timeoutMs: number;
  private readonly tokenPlacement: TokenPlacement;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly userAgent: string;
  private readonly gate: Gate | undefined;
  private readonly maxBodyBytes: number;
  private readonly maxBodyBytesPerApi: Partial<Record<ApiName, number>>;
  private readonly clock: Clock;
  /** What calls proved about their tokens; shared by `withGate` copies, which send with the same tokens. */
  private readonly evidence = new TokenEvidence();

  constructor(options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // However the client was configured (config file, CLI flag, test), its secrets are redacted from all output;
    // providers register every token they obtain.
    if (typeof options.token === 'string') registerSecret(options.token);
    this.tokens = asTokenProvider(options.token);
    registerUrlSecrets(options.baseUrl);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.tokenPlacement = options.tokenPlacement ?? 'header';
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher =
      options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 16, connect: { timeout: 10_000 } });
    this.userAgent = options.userAgent ?? 'cdn-collector';
    this.gate = options.gate;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxBodyBytesPerApi = options.maxBodyBytesPerApi ?? {};
    this.clock = options.clock ?? systemClock;
  }

  /** Same connection pool, token and settings, another gate (e.g. the same limiter at a lower priority). */
  withGate(gate: Gate | undefined): HttpClient {
    const copy = Object.create(HttpClient.prototype) as HttpClient;
    Object.assign(copy, this, { gate, ownsDispatcher: false });
    return copy;
  }

  /**
   * A call refused because its token is invalid or expired is retried once with a renewed token. The retry takes the
   * gate again rather than riding inside the first pass through it: the limiter counts one slot per `send`, and each
   * `send` is one HTTP request, so the quota stays exact — the retry is a second attempt with its own slot. (The
   * limiter does not retry a 401/403 itself: it is final to it.) The login is a different endpoint, outside every
   * API's quota, so it runs outside the gate. A refusal whose text does not say which it is (`possible`) is decided
   * by what the token has proven (TokenEvidence.judge), never by its age.
   */
  async request<T>(spec: RequestSpec<T>): Promise<ApiResponse<T>> {
    // Log in (or read the token file) before queueing for a slot: a login that fails costs no quota.
    await this.tokens.current();
    const scope = `${spec.api} ${accountOf(spec) ?? ''}`; // what a refusal meaning "no access" is about
    let renewFor: string | undefined; // the token a refusal asked to renew
    const attempt = (retry: boolean) =>
      this.gated(spec.api, async () => {
        // The freshest token at the moment of sending (the queue may be long).
        const token = await this.tokens.current();
        const sent = this.evidence.sent(token);
        try {
          const answered = await this.send(spec, token);
          this.evidence.settled(sent, true, scope);
          return answered;
        } catch (err) {
          this.evidence.settled(sent, false, scope);
          // Judged before the gate's watchers see it: a refusal a renewal is about to cure is no operator's problem,
          // and one no renewal can cure names the account.
          const renew = await this.evidence.judge(err, { ticket: sent, scope, retry, tokens: this.tokens });
          renewFor = renew ? token : undefined;
          throw err;
        }
      });
    try {
      return await attempt(false);
    } catch (err) {
      if (renewFor === undefined || !this.tokens.renew) throw err;
      const renewed = await this.tokens.renew(renewFor);
      if (renewed === renewFor) throw err; // nothing new to try
      return attempt(true);
    }
  }

  private gated<R>(target: RequestTarget, send: () => Promise<R>): Promise<R> {
    return this.gate && target !== 'inventory' ? this.gate(target, send) : send();
  }

  private async send<T>(spec: RequestSpec<T>, token: string): Promise<ApiResponse<T>> {
    const params = toSearchParams(spec.query ?? {});
    const useQueryToken =
      this.tokenPlacement === 'query' && spec.api !== 'inventory' && APIS[spec.api].token === 'header-or-query';
    const safeQs = params.toString();
    if (useQueryToken) params.set(TOKEN_QUERY, token);
    const qs = params.toString();
    const url = `${this.baseUrl}${spec.path}${qs ? `?${qs}` : ''}`;
    const account = accountOf(spec);
    const info: RequestInfo = {
      api: spec.api,
      ...(account !== undefined ? { account } : {}),
      method: spec.method,
      url:
        `${withoutUserinfo(this.baseUrl)}${spec.path}${safeQs ? `?${safeQs}` : ''}` +
        `${useQueryToken ? `${safeQs ? '&' : '?'}${TOKEN_QUERY}=***` : ''}`,
    };
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': ACCEPT_ENCODING,
      'user-agent': this.userAgent,
    };
    if (!useQueryToken) {
      // Token sources refuse such a token; a fixed one given to the client (a CLI flag, a test) is checked here.
      if (!isHeaderSafe(token)) throw new RequestArgumentError(info, 'the token holds a character no header can carry');
      headers[TOKEN_HEADER] = token;
    }
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    // A timer of our own, not AbortSignal.timeout: that one does not keep the process alive, so a call undici never
    // settles would end a command with its pass unsettled instead of timing out.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = spec.signal ? AbortSignal.any([deadline.signal, spec.signal]) : deadline.signal;

    let status = 0;
    let responseHeaders: Record<string, string> = {};
    const maxBytes = (spec.api !== 'inventory' && this.maxBodyBytesPerApi[spec.api]) || this.maxBodyBytes;
    let read: Awaited<ReturnType<typeof readCapped>>;
    let list: ListReader<unknown> | undefined;
    try {
      const exchange = async () => {
        const res = await undiciRequest(url, {
          method: spec.method,
          headers,
          body,
          signal,
          dispatcher: this.dispatcher,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        status = res.statusCode;
        responseHeaders = flattenHeaders(res.headers);
        if (spec.list && status >= 200 && status < 300) list = new ListReader(spec.list);
        return readCapped(res, maxBytes, list?.splitter);
      };
      read = await untilAborted(exchange(), signal);
    } catch (err) {
      if (err instanceof ContentEncodingError) throw err.of(info, status);
      if (deadline.signal.aborted) throw new TimeoutError(info, timeoutMs);
      if (spec.signal?.aborted) throw err;
      const code = errorCode(err);
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
        throw new TimeoutError(info, timeoutMs);
      const cause = sanitizeCause(err, token);
      if (code !== undefined && HTTP_ARGUMENT_CODES.has(code))
        throw new RequestArgumentError(info, cause.message, code);
      throw new NetworkError(info, code, { cause });
    } finally {
      clearTimeout(timer);
    }

    if ('oversize' in read) {
      const o = read.oversize;
      throw new BodyTooLargeError(
        info,
        status,
        maxBytes,
        'declared' in o ? o.declared : undefined,
        'read' in o ? o.read : 0,
      );
    }
    const text = read.text;
    const parsed = parseJson(text);
    if (status < 200 || status >= 300) {
      throw new ApiError({
        status,
        body: parsed.ok ? parsed.value : redact(text, token),
        request: info,
        retryAfterSec: parseRetryAfter(responseHeaders['retry-after'], this.clock.now()),
      });
    }
    const failed = list?.failure;
    if (failed)
      throw new ResponseFormatError(info, failed.problem, excerpt(redact(failed.excerpt, token)), failed.kind);
    if (!parsed.ok) throw new ResponseFormatError(info, 'body is not JSON', excerpt(redact(text, token)), 'not-json');
    const checked = spec.schema.safeParse(parsed.value);
    if (!checked.success) throw new ResponseFormatError(info, issueText(checked.error), excerpt(redact(text, token)));
    return { status, headers: responseHeaders, body: checked.data, request: info };
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}
