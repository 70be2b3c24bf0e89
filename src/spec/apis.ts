import { MINUTE } from '../time.js';

/** At most `calls` calls in any sliding window of `periodMs`, per API and token. */
export interface QuotaRule {
  calls: number;
  periodMs: number;
}

/**
 * What the spec (or, where it is silent, our choice) says about one API. Every list or map of APIs in the code —
 * limiters, schedules, simulator stats, CLI flags, config sections, telemetry — derives from these names; the
 * collector's side of an API is its source (src/sources/index.ts lists them, a test holds them to these names).
 * Adding an API: one entry here, one folder under src/sources/ and its entry in that list, a route of the simulator.
 */
export interface ApiDescriptor {
  /** Human name, as the config reference and help texts show it. */
  title: string;
  /** Path prefix below the base URL; every path of the API starts with it. */
  prefix: string;
  /**
   * Where the token may travel: the statistics APIs also read the `cdnauthtoken` query parameter (first) and answer
   * a bad token with 401; the others take only the CDN-AUTH-TOKEN header and answer 403.
   */
  token: 'header' | 'header-or-query';
  /** The key of an error body's text: `{status, description}`, or the statistics APIs' `{status: "error", data}`. */
  errorText: 'description' | 'data';
  /** The default quota; `published: false` where the spec does not show one and the figure is our guess. */
  quota: QuotaRule & { published: boolean };
  /** How the API refuses a token, as its spec documents it (src/http/refusal.ts decides from this). */
  refusal: TokenRefusalRule;
}

/**
 * The status with which an API refuses a token, and what its error text says. `token`: texts that name a dead token;
 * `notToken`: texts that name something a new token cannot cure (an account the token may not read). A refusal
 * with any other text may still be a dead token (an API whose texts are not published), so it earns one renewal.
 */
export interface TokenRefusalRule {
  status: 401 | 403;
  token: RegExp;
  notToken?: RegExp;
}

/** The texts of a dead token on the header-token APIs (DVR documents `Token is expired`; older answers vary). */
const HEADER_TOKEN_REFUSED = /token\s+(is\s+)?(expired|invalid)|invalid or missing cdn-auth-token/i;

/** The statistics APIs' 401 texts: `token is invalid`, and two that name the accounts rather than the token. */
const QUERY_TOKEN_REFUSAL: TokenRefusalRule = {
  status: 401,
  token: /^token is invalid$/i,
  notToken: /^(no accounts available|account)$/i,
};

const DESCRIPTORS = {
  metrics: {
    title: 'metrics API',
    prefix: '/app/metrics/v1',
    token: 'header',
    errorText: 'description',
    quota: { calls: 120, periodMs: MINUTE, published: false },
    // 403 "Invalid token or no access": the real description texts are not published.
    refusal: { status: 403, token: HEADER_TOKEN_REFUSED },
  },
  statistic: {
    title: 'traffic statistics v3',
    prefix: '/app/statistic/v3',
    token: 'header-or-query',
    errorText: 'data',
    quota: { calls: 5, periodMs: MINUTE, published: true },
    refusal: QUERY_TOKEN_REFUSAL,
  },
  streamstat: {
    title: 'stream view statistics v2',
    prefix: '/app/streamstat/v2',
    token: 'header-or-query',
    errorText: 'data',
    quota: { calls: 30, periodMs: MINUTE, published: true },
    refusal: QUERY_TOKEN_REFUSAL,
  },
  dvr: {
    title: 'DVR API',
    prefix: '/app/dvr-net/v1',
    token: 'header',
    errorText: 'description',
    quota: { calls: 60, periodMs: MINUTE, published: false },
    // 403 Forbidden with a description, "Token is expired" for an expired token.
    refusal: { status: 403, token: HEADER_TOKEN_REFUSED },
  },
} as const satisfies Record<string, ApiDescriptor>;

export type ApiName = keyof typeof DESCRIPTORS;

/** Every API's descriptor, by name. */
export const APIS: Readonly<Record<ApiName, ApiDescriptor>> = DESCRIPTORS;

/** The provider's APIs by name, in a stable order (metrics, statistic, streamstat, dvr). */
export const API_NAMES = Object.keys(DESCRIPTORS) as readonly ApiName[];

export function isApiName(text: string): text is ApiName {
  return Object.hasOwn(DESCRIPTORS, text);
}

/** A record with one entry per API, e.g. `perApi((api) => new Limiter(api))`. */
export function perApi<T>(value: (api: ApiName, descriptor: ApiDescriptor) => T): Record<ApiName, T> {
  return Object.fromEntries(API_NAMES.map((api) => [api, value(api, APIS[api])])) as Record<ApiName, T>;
}
