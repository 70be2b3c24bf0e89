import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LOGIN_LIFETIME_MS } from '../spec/login.js';
import type { TokenGrant } from './auth.js';
import type { SimReply } from './types.js';

export interface SimLogin {
  username: string;
  password: string;
  /** Lifetime of each issued token on the simulator's clock; default the real service's ~6 h. */
  tokenLifetimeMs?: number;
}

/**
 * The login (`POST /app/oauth/v1/token/`, see src/spec/login.ts): the configured credentials, as JSON or as a form,
 * get a new token that expires `tokenLifetimeMs` after issue. Its calls count against one quota per user, not per token
 * — a fresh token must not mean a fresh quota, or the simulator would hide a client that renews its way past a 429.
 * A refused login's body is not shown anywhere; chosen: 401 `{"status": 401, "description": "invalid credentials"}`.
 */
export function login(
  config: SimLogin,
  headers: IncomingHttpHeaders,
  rawBody: string,
  now: number,
  issue: (token: string, grant: Omit<TokenGrant, 'accounts'>) => void,
): SimReply {
  const given = credentialsOf(headers['content-type'] ?? '', rawBody);
  if (!given || given.username !== config.username || given.password !== config.password) {
    return { status: 401, body: { status: 401, description: 'invalid credentials' } };
  }
  const lifetime = config.tokenLifetimeMs ?? LOGIN_LIFETIME_MS;
  const token = `sim-login-${randomBytes(12).toString('hex')}`;
  issue(token, { expiresAt: now + lifetime, quotaKey: `user:${config.username}` });
  return { status: 200, body: { status: 200, person_id: 1, token, lifetime } };
}

function credentialsOf(contentType: string, rawBody: string): { username: unknown; password: unknown } | undefined {
  if (contentType.includes('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(rawBody);
    return { username: form.get('username'), password: form.get('password') };
  }
  try {
    const body: unknown = JSON.parse(rawBody);
    if (typeof body !== 'object' || body === null) return undefined;
    const { username, password } = body as Record<string, unknown>;
    return { username, password };
  } catch {
    return undefined;
  }
}
