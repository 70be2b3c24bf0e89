import { ApiError } from '../http/errors.js';

/**
 * The texts with which the APIs refuse a token that is no longer (or never was) valid: DVR and metrics answer 403
 * `Token is expired` / `Token expired` / `Invalid or missing CDN-AUTH-TOKEN`, the statistics APIs 401 `token is invalid`.
 * A 403 for anything else (no access to an account) or a 401 `no accounts available` / `account` is not cured by a
 * new token, so it is not retried.
 */
const REFUSAL = /token\s+(is\s+)?(expired|invalid)|invalid or missing cdn-auth-token/i;

/** A 401/403 that says the token is invalid or expired: worth one renewal and one retry. */
export function isTokenRefusal(err: unknown): err is ApiError {
  if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) return false;
  return REFUSAL.test(err.description ?? '');
}
