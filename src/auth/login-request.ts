import { request, type Dispatcher } from '../http/undici.js';
import { readCapped } from '../http/body.js';
import { ACCEPT_ENCODING } from '../http/content-coding.js';
import { CollectorError } from '../errors.js';
import { redactSecrets, registerSecret, withoutUserinfo } from '../secrets.js';
import { LOGIN_PATH, type LoginBodyFormat } from '../spec/login.js';
import { HOUR } from '../time.js';

/**
 * The vendor documents the answer's `lifetime` as the milliseconds LEFT until the token expires (21 599 000 on a fresh
 * login); 0 or less is a token that expires now. When it is missing or not a number, six hours are assumed (with a
 * warning naming the field) — and renewal at a fraction of it, plus the renewal on refusal, cover a token that dies
 * sooner.
 */
export const ASSUMED_LIFETIME_MS = 6 * HOUR;

export interface LoginRequest {
  baseUrl: string;
  username: string;
  password: string;
  bodyFormat: LoginBodyFormat;
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

export type LoginAnswer =
  | { ok: true; token: string; lifetimeMs: number; lifetimeAssumed: boolean }
  | { ok: false; problem: string; status?: number };

/**
 * The login answers 400, 401 and 403 to credentials (or a request) it refuses: trying the same again cannot help, and
 * every try may count toward the account's ban. Network errors, 5xx and 429 are the service's trouble: back off.
 */
export function isCredentialRefusal(answer: LoginAnswer): boolean {
  return !answer.ok && (answer.status === 400 || answer.status === 401 || answer.status === 403);
}

/** Largest login answer read: a token and a few numbers. */
const MAX_LOGIN_BODY = 64 * 1024;

/** The URL of the login, safe to print. */
export function loginUrl(baseUrl: string): string {
  return `${withoutUserinfo(baseUrl.replace(/\/+$/, ''))}${LOGIN_PATH}`;
}

/**
 * One login. Lenient about the answer's shape (`status` 200 or "200", `lifetime` a number or a numeric string or
 * missing), strict about the token: a non-empty string. Never throws; every problem comes back as text free of secrets.
 */
export async function requestLogin(req: LoginRequest): Promise<LoginAnswer> {
  const credentials = { username: req.username, password: req.password };
  const body = req.bodyFormat === 'json' ? JSON.stringify(credentials) : new URLSearchParams(credentials).toString();
  const contentType = req.bodyFormat === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
  let status: number;
  let text: string;
  try {
    const res = await request(`${req.baseUrl.replace(/\/+$/, '')}${LOGIN_PATH}`, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'accept-encoding': ACCEPT_ENCODING,
        'content-type': contentType,
        'user-agent': 'cdn-collector',
      },
      body,
      signal: AbortSignal.timeout(req.timeoutMs),
      ...(req.dispatcher ? { dispatcher: req.dispatcher } : {}),
    });
    status = res.statusCode;
    const read = await readCapped(res, MAX_LOGIN_BODY);
    if ('oversize' in read) return { ok: false, status, problem: `answer over ${MAX_LOGIN_BODY} bytes` };
    text = read.text;
  } catch (err) {
    const e = err as { name?: string; code?: string; cause?: { code?: string } };
    // A CollectorError already says what went wrong, e.g. an unknown coding.
    if (err instanceof CollectorError) return { ok: false, problem: redactSecrets(err.message) };
    return {
      ok: false,
      problem:
        e.name === 'TimeoutError'
          ? `no answer within ${req.timeoutMs} ms`
          : (e.code ?? e.cause?.code ?? 'network error'),
    };
  }
  return parseLoginAnswer(status, text);
}

export function parseLoginAnswer(httpStatus: number, text: string): LoginAnswer {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: reported below by what is missing
  }
  const token = typeof body.token === 'string' ? body.token.trim() : '';
  // Registered before anything is described: a refusal may quote the token or the password back.
  registerSecret(token);
  const bodyStatus = Number(body.status);
  const refused =
    httpStatus < 200 || httpStatus >= 300 || (Number.isInteger(bodyStatus) && (bodyStatus < 200 || bodyStatus >= 300));
  if (refused || !token) {
    const said =
      typeof body.description === 'string'
        ? body.description
        : typeof body.detail === 'string'
          ? body.detail
          : undefined;
    const problem = refused
      ? `HTTP ${httpStatus}${Number.isInteger(bodyStatus) ? ` (status ${bodyStatus})` : ''}`
      : 'the answer has no token';
    // A 200 whose body says 401 is the body's refusal.
    const status = httpStatus >= 200 && httpStatus < 300 && Number.isInteger(bodyStatus) ? bodyStatus : httpStatus;
    return { ok: false, status, problem: redactSecrets(said ? `${problem}: ${said.slice(0, 200)}` : problem) };
  }
  const lifetime = typeof body.lifetime === 'string' ? Number(body.lifetime.trim() || Number.NaN) : body.lifetime;
  const usable = typeof lifetime === 'number' && Number.isFinite(lifetime);
  return { ok: true, token, lifetimeMs: usable ? lifetime : ASSUMED_LIFETIME_MS, lifetimeAssumed: !usable };
}
