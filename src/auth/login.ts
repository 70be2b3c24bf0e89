import { systemClock, type Clock } from '../clock.js';
import { backoffDelay, type BackoffOptions } from '../limit/backoff.js';
import { registerSecret } from '../secrets.js';
import { MINUTE } from '../time.js';
import { LoginError } from './errors.js';
import { loginUrl, requestLogin, type LoginAnswer, type LoginRequest } from './login-request.js';
import type { AuthEvent, TokenProvider } from './provider.js';

export interface LoginOptions extends LoginRequest {
  clock?: Clock;
  /** Renew once this fraction of a token's lifetime has passed (default 0.8: ~72 min early on a 6 h token). */
  renewAfter?: number;
  /** Between failed logins: at least `baseMs`, doubling up to `capMs`, jittered. Default 5 s … 5 min. */
  backoff?: BackoffOptions;
  random?: () => number;
  onEvent?: (e: AuthEvent) => void;
  /** The login itself (tests replace it). */
  send?: (req: LoginRequest) => Promise<LoginAnswer>;
}

export const DEFAULT_LOGIN_BACKOFF: BackoffOptions = { baseMs: 5_000, capMs: 5 * MINUTE };

/**
 * Tokens from the login flow: one login before the first call, a new one once `renewAfter` of the lifetime has passed,
 * and one when a call is refused as invalid or expired. However many calls wait, one login is under way at a time
 * (single flight). After a failed login, no other is tried before its backoff has passed: calls meanwhile use the
 * previous token while it lives, or fail at once with the LoginError.
 */
export class LoginTokenProvider implements TokenProvider {
  /** Logins made, successful or not (tests). */
  attempts = 0;
  private token: string | undefined;
  /** Clock times (ms) at which the token is renewed and at which it dies. */
  private renewAt = Number.NEGATIVE_INFINITY;
  private expiresAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<string> | undefined;
  private failures = 0;
  private retryAt = Number.NEGATIVE_INFINITY;
  private lastError: LoginError | undefined;
  private readonly clock: Clock;
  private readonly send: (req: LoginRequest) => Promise<LoginAnswer>;

  constructor(private readonly options: LoginOptions) {
    registerSecret(options.password);
    this.clock = options.clock ?? systemClock;
    this.send = options.send ?? requestLogin;
  }

  current(): Promise<string> {
    if (this.token !== undefined && this.clock.now() < this.renewAt) return Promise.resolve(this.token);
    return this.obtain();
  }

  renew(refused: string): Promise<string> {
    // Another call already replaced the refused token: use the new one, no second login.
    if (this.token !== undefined && this.token !== refused) return Promise.resolve(this.token);
    // The server says it is dead, whatever its lifetime said.
    if (this.token === refused) this.renewAt = this.expiresAt = Number.NEGATIVE_INFINITY;
    return this.obtain();
  }

  private obtain(): Promise<string> {
    if (this.clock.now() < this.retryAt) return this.fallback(this.lastError!);
    this.inflight ??= this.login().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async login(): Promise<string> {
    this.attempts++;
    const answer = await this.send(this.options);
    const now = this.clock.now();
    if (answer.ok) {
      registerSecret(answer.token);
      this.token = answer.token;
      this.renewAt = now + answer.lifetimeMs * (this.options.renewAfter ?? 0.8);
      this.expiresAt = now + answer.lifetimeMs;
      this.failures = 0;
      this.retryAt = Number.NEGATIVE_INFINITY;
      this.lastError = undefined;
      this.options.onEvent?.({ type: 'obtained', source: 'login', lifetimeMs: answer.lifetimeMs, lifetimeAssumed: answer.lifetimeAssumed });
      return answer.token;
    }
    this.failures++;
    const backoff = this.options.backoff ?? DEFAULT_LOGIN_BACKOFF;
    const retryInMs = Math.max(backoff.baseMs, backoffDelay(this.failures, backoff, this.options.random ?? Math.random));
    this.retryAt = now + retryInMs;
    this.lastError = new LoginError(loginUrl(this.options.baseUrl), answer.problem, answer.status, retryInMs);
    this.options.onEvent?.({ type: 'failed', source: 'login', error: this.lastError, retryInMs });
    return this.fallback(this.lastError);
  }

  /** While a login cannot be had: the previous token if it still lives, else the login's error. */
  private fallback(error: LoginError): Promise<string> {
    if (this.token !== undefined && this.clock.now() < this.expiresAt) return Promise.resolve(this.token);
    return Promise.reject(error);
  }
}
