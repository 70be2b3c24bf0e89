import { systemClock, type Clock } from '../clock.js';
import { backoffDelay, type BackoffOptions } from '../limit/backoff.js';
import { registerSecret } from '../secrets.js';
import { HOUR, MINUTE } from '../time.js';
import { LoginError, LoginStoppedError } from './errors.js';
import { isCredentialRefusal, loginUrl, requestLogin, type LoginAnswer, type LoginRequest } from './login-request.js';
import type { AuthEvent, TokenProvider } from './provider.js';
import type { TokenRefusal } from './refusal.js';
import { BAN_AFTER_REFUSALS, BAN_MS, LOGINS_PER_MINUTE } from '../spec/login.js';

export interface LoginOptions extends Omit<LoginRequest, 'password'> {
  /** The password now: a password file is read again when logins stopped on refused credentials. */
  password: string | (() => string);
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
 * Consecutive refusals of the credentials after which logins stop. The service bans an account for 3 hours after 7
 * wrong passwords, the portal's included: a second and third refusal rule out a passing glitch, and stopping there
 * leaves the operator tries of their own (and a second process, such as a `dvr` command) before the ban.
 */
export const MAX_CREDENTIAL_REFUSALS = 3;

/** Once stopped on refused credentials, the next login waits this long unless the password changes: twice the ban. */
export const CREDENTIALS_PAUSE_MS = 2 * BAN_MS;

/**
 * A token refused within this long of its login is not renewed again: a fresh token refused means no access, not
 * expiry. It bounds the logins that an API refusing one account (metrics' 403 "no access") can cause.
 */
export const FRESH_TOKEN_MS = 10 * MINUTE;

/**
 * Tokens from the login flow: one login before the first call, a new one once `renewAfter` of the lifetime has passed,
 * and one when a call is refused (at most one per token). The answer's `lifetime` is the time left, counted from
 * when the login was sent, so a token is never used past its own expiry; a login that hands back the token already
 * held is no renewal (its remaining life is kept, and the next login waits for its end). However many calls wait, one
 * login is under way at a time. After a failed login, no other is tried before its backoff has passed: calls
 * meanwhile use the previous token while it lives, or fail at once with the LoginError. Refused credentials stop the
 * logins after MAX_CREDENTIAL_REFUSALS until the password changes or CREDENTIALS_PAUSE_MS have passed.
 */
export class LoginTokenProvider implements TokenProvider {
  readonly source = 'the login of api.username (CDN_USERNAME)';
  /** Logins made, successful or not (tests). */
  attempts = 0;
  private token: string | undefined;
  /** Clock times (ms): the last login that handed out the token, its renewal and its death. */
  private obtainedAt = Number.NEGATIVE_INFINITY;
  private renewAt = Number.NEGATIVE_INFINITY;
  private expiresAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<string> | undefined;
  /** The last token renewed because an API refused it: never renewed twice. */
  private renewedOnRefusal: string | undefined;
  private failures = 0;
  private refusals = 0;
  /** The password the service refused MAX_CREDENTIAL_REFUSALS times: logins wait for another one (or the pause). */
  private refusedPassword: string | undefined;
  private retryAt = Number.NEGATIVE_INFINITY;
  private lastError: LoginError | undefined;
  /** When the logins of the last minute were sent. */
  private readonly recentLogins: number[] = [];
  /** Aborted by stop(): the login in flight is abandoned and no other starts. */
  private readonly stopping = new AbortController();
  private readonly clock: Clock;
  private readonly send: (req: LoginRequest) => Promise<LoginAnswer>;

  constructor(private readonly options: LoginOptions) {
    if (typeof options.password === 'string') registerSecret(options.password);
    this.clock = options.clock ?? systemClock;
    this.send = options.send ?? requestLogin;
  }

  current(): Promise<string> {
    if (this.token !== undefined && this.clock.now() < this.renewAt) return Promise.resolve(this.token);
    return this.obtain();
  }

  /**
   * A refusal whose text names a dead token is renewed once per token; one the API does not explain (`possible`) only
   * when the token is not fresh, since a fresh token refused means no access, which no login cures.
   */
  willRenew(refused: string, kind: TokenRefusal = 'token'): boolean {
    if (this.token !== refused) return true;
    // Its one renewal: a retry follows while it is under way, none once it handed the same token back.
    if (this.renewedOnRefusal === refused) return this.inflight !== undefined;
    return kind === 'token' || this.clock.now() - this.obtainedAt >= FRESH_TOKEN_MS;
  }

  renew(refused: string, kind: TokenRefusal = 'token'): Promise<string> {
    // Another call already replaced the refused token: use the new one, no second login.
    if (this.token !== refused) return this.current();
    // Its one renewal is under way (share it) or done and handed the same token back (nothing new to try).
    if (this.renewedOnRefusal === refused) return this.inflight ?? Promise.resolve(refused);
    if (!this.willRenew(refused, kind)) return Promise.resolve(refused);
    // The server says it is dead, whatever its lifetime said.
    this.renewedOnRefusal = refused;
    this.renewAt = this.expiresAt = Number.NEGATIVE_INFINITY;
    return this.obtain();
  }

  /** The command is stopping: the login in flight is abandoned, and no login starts from now on. */
  stop(): void {
    this.stopping.abort();
  }

  private obtain(): Promise<string> {
    if (this.stopping.signal.aborted) return Promise.reject(new LoginStoppedError(loginUrl(this.options.baseUrl)));
    const now = this.clock.now();
    if (this.refusedPassword !== undefined && this.password() !== this.refusedPassword) this.resume();
    if (now < this.retryAt) return this.fallback(this.lastError!);
    const minuteAgo = now - MINUTE;
    while (this.recentLogins.length > 0 && this.recentLogins[0]! <= minuteAgo) this.recentLogins.shift();
    if (this.recentLogins.length >= LOGINS_PER_MINUTE && !this.inflight) {
      const retryInMs = this.recentLogins[0]! + MINUTE - now;
      return this.fallback(
        new LoginError(loginUrl(this.options.baseUrl), `${LOGINS_PER_MINUTE} logins in a minute`, undefined, retryInMs),
      );
    }
    this.inflight ??= this.login().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async login(): Promise<string> {
    this.attempts++;
    const sentAt = this.clock.now();
    this.recentLogins.push(sentAt);
    const password = this.password();
    const answer = await this.send({ ...this.options, password, signal: this.stopping.signal });
    // Abandoned by the stop: no failure of the service, nothing to count or report.
    if (this.stopping.signal.aborted) throw new LoginStoppedError(loginUrl(this.options.baseUrl));
    const now = this.clock.now();
    if (answer.ok) return this.accept(answer, sentAt, now);
    this.failures++;
    if (isCredentialRefusal(answer)) this.refusals++;
    const stopped = this.refusals >= MAX_CREDENTIAL_REFUSALS;
    const backoff = this.options.backoff ?? DEFAULT_LOGIN_BACKOFF;
    const retryInMs = stopped
      ? CREDENTIALS_PAUSE_MS
      : Math.max(backoff.baseMs, backoffDelay(this.failures, backoff, this.options.random ?? Math.random));
    if (stopped) this.refusedPassword = password;
    this.retryAt = now + retryInMs;
    const problem = stopped
      ? `${answer.problem}; the credentials were refused ${this.refusals} times in a row, so logins stop until the ` +
        `password changes or ${CREDENTIALS_PAUSE_MS / HOUR} h have passed ` +
        `(${BAN_AFTER_REFUSALS} wrong passwords ban the account for ${BAN_MS / HOUR} h)`
      : answer.problem;
    this.lastError = new LoginError(loginUrl(this.options.baseUrl), problem, answer.status, retryInMs);
    this.options.onEvent?.({ type: 'failed', source: 'login', error: this.lastError, retryInMs, stopped });
    return this.fallback(this.lastError);
  }

  private accept(answer: Extract<LoginAnswer, { ok: true }>, sentAt: number, now: number): string {
    registerSecret(answer.token);
    // The same token back is no renewal: it dies when it would have, and the next login comes then.
    const reused = answer.token === this.token;
    this.token = answer.token;
    this.expiresAt = sentAt + answer.lifetimeMs;
    this.renewAt = reused ? this.expiresAt : sentAt + answer.lifetimeMs * (this.options.renewAfter ?? 0.8);
    this.obtainedAt = now;
    this.failures = this.refusals = 0;
    this.refusedPassword = undefined;
    this.retryAt = Number.NEGATIVE_INFINITY;
    this.lastError = undefined;
    const { lifetimeMs, lifetimeAssumed } = answer;
    this.options.onEvent?.({ type: 'obtained', source: 'login', lifetimeMs, lifetimeAssumed, reused });
    return answer.token;
  }

  /** The password changed since it was refused: logins may go on at once. */
  private resume(): void {
    this.refusedPassword = undefined;
    this.refusals = this.failures = 0;
    this.retryAt = Number.NEGATIVE_INFINITY;
  }

  private password(): string {
    const p = this.options.password;
    return typeof p === 'string' ? p : p();
  }

  /** While a login cannot be had: the previous token if it still lives, else the login's error. */
  private fallback(error: LoginError): Promise<string> {
    if (this.token !== undefined && this.clock.now() < this.expiresAt) return Promise.resolve(this.token);
    return Promise.reject(error);
  }
}
