import { APIS, type ApiName } from '../spec/apis.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { SimReply } from './routes/types.js';

export interface TokenGrant {
  accounts: string[];
  expired?: boolean;
  /** Clock time (ms) from which the token is expired: tokens issued by the login. */
  expiresAt?: number;
  /** Whose quota the token's calls count against (default: the token itself); login tokens share their user's. */
  quotaKey?: string;
}

/** Tokens every simulator knows besides its main one, so tests can reach each authentication error. */
export const SPECIAL_TOKENS = {
  expired: 'sim-expired-token',
  noAccounts: 'sim-no-accounts-token',
} as const;

export type AuthResult = { ok: true; quotaKey: string; accounts: string[] } | { ok: false; reply: SimReply };

/**
 * Authentication per spec. Metrics and DVR take only the CDN-AUTH-TOKEN header and answer 403 Forbidden.
 * The statistics APIs read `cdnauthtoken` from the query first, then the header, and answer 401 with
 * `token is invalid`, `no accounts available` or `account`. Their error body shape is not shown; chosen:
 * `{ "status": "error", "data": "<text>" }`, the table's "Data" column as `data`. DVR refuses a login token past its
 * lifetime as its spec says (403 Forbidden, `Token is expired`); the special expired token keeps the shorter
 * `Token expired`, so clients are tested against both wordings. Metrics publishes no refusal text ("Invalid token or
 * no access" is its table's meaning column): every metrics refusal answers `metricsRefusal` (settable), so a client
 * cannot rely on a wording the real service may not use.
 */
export function authenticate(
  api: ApiName,
  tokens: ReadonlyMap<string, TokenGrant>,
  headers: IncomingHttpHeaders,
  query: URLSearchParams,
  now: number,
  metricsRefusal: string,
): AuthResult {
  const header = headers['cdn-auth-token'];
  const headerToken = Array.isArray(header) ? header[0] : header;
  if (APIS[api].token === 'header') {
    const grant = headerToken ? tokens.get(headerToken) : undefined;
    const refuse = (dvrText: string) => forbidden(api === 'metrics' ? metricsRefusal : dvrText);
    if (!headerToken || !grant) return refuse('Invalid or missing CDN-AUTH-TOKEN');
    if (grant.expired) return refuse('Token expired');
    if (pastLifetime(grant, now)) return refuse('Token is expired');
    return { ok: true, quotaKey: grant.quotaKey ?? headerToken, accounts: grant.accounts };
  }
  const token = query.get('cdnauthtoken') ?? headerToken;
  const grant = token ? tokens.get(token) : undefined;
  if (!token || !grant || grant.expired || pastLifetime(grant, now)) return unauthorized('token is invalid');
  if (grant.accounts.length === 0) return unauthorized('no accounts available');
  const account = query.get('account');
  if (account !== null && !grant.accounts.includes(account)) return unauthorized('account');
  return { ok: true, quotaKey: grant.quotaKey ?? token, accounts: grant.accounts };
}

/** A token the simulator knows and that lives now: the header-token endpoints outside the four APIs (inventory). */
export function liveGrant(
  tokens: ReadonlyMap<string, TokenGrant>,
  headers: IncomingHttpHeaders,
  now: number,
): TokenGrant | undefined {
  const header = headers['cdn-auth-token'];
  const token = Array.isArray(header) ? header[0] : header;
  const grant = token ? tokens.get(token) : undefined;
  return grant && !grant.expired && !pastLifetime(grant, now) ? grant : undefined;
}

function pastLifetime(grant: TokenGrant, now: number): boolean {
  return grant.expiresAt !== undefined && now >= grant.expiresAt;
}

export function forbidden(description: string): { ok: false; reply: SimReply } {
  return { ok: false, reply: { status: 403, body: { status: 'Forbidden', description } } };
}

function unauthorized(data: string): { ok: false; reply: SimReply } {
  return { ok: false, reply: { status: 401, body: { status: 'error', data } } };
}
