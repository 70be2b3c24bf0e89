import { systemClock, type Clock } from '../clock.js';
import { backoffDelay, type BackoffOptions } from '../limit/backoff.js';
import { registerSecret } from '../secrets.js';
import { MINUTE } from '../time.js';
import { LoginError, LoginStoppedError } from './errors.js';
import { isCredentialRefusal, loginUrl, requestLogin, type LoginAnswer, type LoginRequest } from './login-request.js';
import {
  banText,
  loginGate,
  LoginsStoppedError,
  MemoryLoginLedger,
  stoppedText,
  withRefusal,
  type LoginGate,
  type LoginLedger,
} from './login-stop.js';
import type { TokenProvider } from '../http/token-provider.js';
import type { AuthEvent } from './events.js';
import { LOGINS_PER_MINUTE } from '../spec/login.js';

export { CREDENTIALS_PAUSE_MS, MAX_CREDENTIAL_REFUSALS } from './login-stop.js';

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
  /** Where refused logins are counted: the state dir's file, shared by processes (default: this process only). */
  ledger?: LoginLedger;
  /** `--force-login`: the first login is sent even though earlier refusals stopped the logins. */
  forceLogin?: boolean;
  /** What to fix when the credentials are refused, in the words of how they were given (settings, flags). */
  fix?: string;
}

export const DEFAULT_LOGIN_BACKOFF: BackoffOptions = { baseMs: 5_000, capMs: 5 * MINUTE };

/** While logins are stopped, the shared count (another process may have logged in) is read again this often. */
export const STOPPED_RECHECK_MS = MINUTE;

const DEFAULT_FIX = 'the username and password';

/**
 * Tokens from the login flow: one login before the first call, a new one once `renewAfter` of the lifetime has passed,
 * and one when a call is refused (at most one per token). The answer's `lifetime` is the time left, counted from
 * when the login was sent, so a token is never used past its own expiry; a login that hands back the token already
 * held is no renewal (its remaining life is kept, and the next login waits for its end). However many calls wait, one
 * login is under way at a time. After a failed login, no other is tried before its backoff has passed: calls
 * meanwhile use the previous token while it lives, or fail at once with the LoginError. Refused credentials are
 * counted in the ledger, which every process on the state dir shares; when it says the logins are stopped
 * (login-stop.ts), none is sent until the password changes in this process, `--force-login` or the pause allows one.
 */
export class LoginTokenProvider implements TokenProvider {
  readonly source = 'the login of api.username (CDN_USERNAME)';
  /** Logins made, successful or not (tests). */
  attempts = 0;
  private token: string | undefined;
  /** Clock times (ms): the token's renewal and its death. */
  private renewAt = Number.NEGATIVE_INFINITY;
  private expiresAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<string> | undefined;
  /** The last token renewed because an API refused it: never renewed twice. */
  private renewedOnRefusal: string | undefined;
  private failures = 0;
  /** Logins in a row whose token expired at once (`lifetime` 0 or less). */
  private expiredInARow = 0;
  /** The password the service last refused: another one (a corrected password file) may be tried at once. */
  private refusedPassword: string | undefined;
  /** `--force-login` not used yet. */
  private forceOnce: boolean;
  private readonly ledger: LoginLedger;
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
    this.ledger = options.ledger ?? new MemoryLoginLedger();
    this.forceOnce = options.forceLogin ?? false;
  }

  /**
   * Before a command starts: logins stopped by earlier refusals (of any process on the state dir) are a
   * LoginsStoppedError naming the username, since when and how to resume; no login is sent.
   */
  async checkStart(): Promise<void> {
    const gate = loginGate(await this.ledger.read(), this.clock.now(), this.forceOnce);
    if (gate.open) return;
    const text = stoppedText(this.options.username, gate, this.fix);
    throw new LoginsStoppedError(this.options.username, gate.entry.refused, text, this.ledger.where);
  }

  current(): Promise<string> {
    if (this.token !== undefined && this.clock.now() < this.renewAt) return Promise.resolve(this.token);
    return this.obtain();
  }

  /**
   * A refused token is renewed once, whatever its age: whether a refusal means a dead token or an account it may not
   * read is the HttpClient's to decide from what the token proved (TokenEvidence), before it asks.
   */
  willRenew(refused: string): boolean {
    if (this.token !== refused) return true;
    // Its one renewal: a retry follows while it is under way, none once it handed the same token back.
    return this.renewedOnRefusal !== refused || this.inflight !== undefined;
  }

  renew(refused: string): Promise<string> {
    // Another call already replaced the refused token: use the new one, no second login.
    if (this.token !== refused) return this.current();
    // Its one renewal is under way (share it) or done and handed the same token back (nothing new to try).
    if (this.renewedOnRefusal === refused) return this.inflight ?? Promise.resolve(refused);
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
    // A password changed since it was refused is tried at once.
    if (this.refusedPassword !== undefined && this.password() !== this.refusedPassword) this.retryAt = -Infinity;
    if (now < this.retryAt) return this.fallback(this.lastError!);
    if (!this.loginAllowed(now) && !this.inflight) {
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
    const password = this.password();
    const changed = this.refusedPassword !== undefined && password !== this.refusedPassword;
    const gate = loginGate(await this.ledger.read(), this.clock.now(), this.forceOnce || changed);
    if (!gate.open) return this.stopped(gate);
    this.forceOnce = false;
    this.attempts++;
    const sentAt = this.clock.now();
    this.recentLogins.push(sentAt);
    const answer = await this.send({ ...this.options, password, signal: this.stopping.signal });
    // Abandoned by the stop: no failure of the service, nothing to count or report.
    if (this.stopping.signal.aborted) throw new LoginStoppedError(loginUrl(this.options.baseUrl));
    const now = this.clock.now();
    if (answer.ok) await this.ledger.update(() => undefined);
    if (answer.ok && answer.lifetimeMs > 0) return this.accept(answer, sentAt);
    if (answer.ok) return this.expiresAtOnce(answer, now);
    this.failures++;
    if (isCredentialRefusal(answer)) return this.refused(answer, password, now);
    const error = new LoginError(loginUrl(this.options.baseUrl), answer.problem, answer.status, this.backoffMs());
    return this.failed(error, {});
  }

  /** The service refused the credentials: counted for every process; the logins stop when the count says so. */
  private async refused(answer: Extract<LoginAnswer, { ok: false }>, password: string, now: number): Promise<string> {
    const counted = (await this.ledger.update((entry) => withRefusal(entry, now)))!;
    const { refused } = counted;
    const gate = loginGate(counted, now, false);
    this.refusedPassword = password;
    const { username } = this.options;
    if (!gate.open) {
      const problem = `${answer.problem}; ${stoppedText(username, gate, this.fix)}`;
      const error = new LoginError(loginUrl(this.options.baseUrl), problem, answer.status, STOPPED_RECHECK_MS);
      return this.failed(error, { credentialsRefused: true, refused, stopped: true });
    }
    const problem =
      `${answer.problem}: the service refused the credentials of ${username} (${refused} in a row; ` +
      `${banText(refused)}); fix ${this.fix}`;
    const error = new LoginError(loginUrl(this.options.baseUrl), problem, answer.status, this.backoffMs());
    return this.failed(error, { credentialsRefused: true, refused });
  }

  /** The wait after the latest of `failures` failed logins in a row. */
  private backoffMs(): number {
    const backoff = this.options.backoff ?? DEFAULT_LOGIN_BACKOFF;
    return Math.max(backoff.baseMs, backoffDelay(this.failures, backoff, this.options.random ?? Math.random));
  }

  /** Earlier refusals stopped the logins: none is sent; the count is read again after STOPPED_RECHECK_MS. */
  private stopped(gate: Extract<LoginGate, { open: false }>): Promise<string> {
    const text = stoppedText(this.options.username, gate, this.fix);
    const error = new LoginError(loginUrl(this.options.baseUrl), text, undefined, STOPPED_RECHECK_MS);
    return this.failed(error, { refused: gate.entry.refused, stopped: true });
  }

  private failed(
    error: LoginError,
    detail: { credentialsRefused?: boolean; refused?: number; stopped?: boolean },
  ): Promise<string> {
    this.retryAt = this.clock.now() + error.retryInMs!;
    this.lastError = error;
    const { username } = this.options;
    this.options.onEvent?.({ type: 'failed', source: 'login', error, retryInMs: error.retryInMs, username, ...detail });
    return this.fallback(error);
  }

  /**
   * A token whose `lifetime` is 0 or less expires now: it is never sent. The next login goes at once (a token handed
   * back at the end of its life is followed by a new one), within the logins a minute; if that one expires now too,
   * the logins back off as after a failure, and calls meanwhile fail with the LoginError (no loop of logins).
   */
  private expiresAtOnce(answer: Extract<LoginAnswer, { ok: true }>, now: number): Promise<string> {
    registerSecret(answer.token);
    if (answer.token === this.token) this.renewAt = this.expiresAt = Number.NEGATIVE_INFINITY;
    const { lifetimeMs } = answer;
    this.options.onEvent?.({ type: 'obtained', source: 'login', lifetimeMs, lifetimeAssumed: false, expired: true });
    if (++this.expiredInARow === 1 && this.loginAllowed(now)) return this.login();
    const backoff = this.options.backoff ?? DEFAULT_LOGIN_BACKOFF;
    const retryInMs = Math.max(
      backoff.baseMs,
      backoffDelay(this.expiredInARow - 1, backoff, this.options.random ?? Math.random),
    );
    this.retryAt = now + retryInMs;
    const problem = `the login answered lifetime ${lifetimeMs}: its token expires at once`;
    this.lastError = new LoginError(loginUrl(this.options.baseUrl), problem, undefined, retryInMs);
    this.options.onEvent?.({ type: 'failed', source: 'login', error: this.lastError, retryInMs });
    return this.fallback(this.lastError);
  }

  /** Whether another login fits in the service's LOGINS_PER_MINUTE now. */
  private loginAllowed(now: number): boolean {
    while (this.recentLogins.length > 0 && this.recentLogins[0]! <= now - MINUTE) this.recentLogins.shift();
    return this.recentLogins.length < LOGINS_PER_MINUTE;
  }

  private accept(answer: Extract<LoginAnswer, { ok: true }>, sentAt: number): string {
    registerSecret(answer.token);
    // The same token back is no renewal: it dies when it would have, and the next login comes then.
    const reused = answer.token === this.token;
    this.token = answer.token;
    this.expiresAt = sentAt + answer.lifetimeMs;
    this.renewAt = reused ? this.expiresAt : sentAt + answer.lifetimeMs * (this.options.renewAfter ?? 0.8);
    this.failures = this.expiredInARow = 0;
    this.refusedPassword = undefined;
    this.retryAt = Number.NEGATIVE_INFINITY;
    this.lastError = undefined;
    const { lifetimeMs, lifetimeAssumed } = answer;
    this.options.onEvent?.({ type: 'obtained', source: 'login', lifetimeMs, lifetimeAssumed, reused });
    return answer.token;
  }

  private get fix(): string {
    return this.options.fix ?? DEFAULT_FIX;
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
