import { MAX_CREDENTIAL_REFUSALS } from '../auth/login-stop.js';
import type { AuthEvent } from '../auth/events.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { FailureLines, FirstFailure, Run } from './failure-lines.js';
import type { Telemetry } from './telemetry.js';

/** The /healthz condition set while no token can be had (a failed login, an unreadable token file). */
export const AUTH_CONDITION = 'auth';

/**
 * Token events to the log and /healthz. A run of failed logins is told as the APIs' runs are (FailureLines): its
 * first failure at once — an error naming the username and the fix when the service refused the credentials or the
 * logins are stopped — then one summary a minute while no token can be had, and one line when a login works again.
 * A line never carries a token or a password: the error messages are built free of them and pass the redactor.
 */
export class AuthReports {
  /** The failures since a token was last had; `refused`: its first line told a refusal of the credentials. */
  private run: (Run & { refused: boolean }) | undefined;

  constructor(
    private readonly telemetry: Telemetry,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly lines: FailureLines,
  ) {}

  report(e: AuthEvent): void {
    if (e.type === 'obtained') {
      this.obtained(e);
      return;
    }
    this.telemetry.condition(AUTH_CONDITION, e.error.message);
    const refused = e.credentialsRefused === true || e.stopped === true;
    // A refusal after failures of another kind (the service unreachable) is news: a run of its own, told at once.
    if (this.run && refused && !this.run.refused) this.run = undefined;
    if (this.run) this.run.failures++;
    else this.run = { since: this.clock.now(), failures: 1, refused };
    const detail = {
      code: (e.error as { code?: string }).code,
      err: e.error.message,
      retryInMs: e.retryInMs,
      ...(e.username === undefined ? {} : { username: e.username }),
      ...(e.refused === undefined ? {} : { refused: e.refused }),
      ...(e.stopped ? { stopped: true } : {}),
    };
    this.lines.failed(watched(e.source), this.run, detail, () => firstLine(e));
  }

  private obtained(e: Extract<AuthEvent, { type: 'obtained' }>): void {
    this.telemetry.condition(AUTH_CONDITION, undefined);
    if (e.lifetimeAssumed)
      this.log.warn(
        { source: e.source, field: 'lifetime', lifetimeMs: e.lifetimeMs },
        "the login's answer has no usable `lifetime` (missing or not a number): the default is assumed, and the " +
          'token is renewed at a fraction of it or when a call proves it dead',
      );
    if (e.expired) {
      this.log.warn(
        { source: e.source, field: 'lifetime', lifetimeMs: e.lifetimeMs },
        "the login's answer says `lifetime` 0 or less: that token expires now and is not used; logging in again",
      );
      return;
    }
    this.lines.succeeded(watched(e.source), this.run);
    this.run = undefined;
    const lifetime = e.lifetimeMs === undefined ? {} : { lifetimeMs: e.lifetimeMs, lifetimeAssumed: e.lifetimeAssumed };
    if (e.reused)
      this.log.info(
        { event: 'token_reused', source: e.source, ...lifetime },
        'logged in: the service handed back the token in use; renewed when it expires',
      );
    else
      this.log.info(
        { event: e.source === 'login' ? 'logged_in' : 'token_read', source: e.source, ...lifetime },
        e.source === 'login' ? 'logged in: new API token' : 'API token read from its file',
      );
  }
}

function watched(source: 'login' | 'file'): { label: string; fields: Record<string, unknown> } {
  return { label: source === 'login' ? 'login' : 'token file', fields: { source } };
}

/** The first line of a run: what failed, for which username, and where the fix is (`err` carries it whole). */
function firstLine(e: Extract<AuthEvent, { type: 'failed' }>): FirstFailure {
  const user = e.username ?? 'the configured username';
  if (e.credentialsRefused)
    return {
      level: 'error',
      msg:
        `login refused: the service refused the credentials of ${user}; fix them as err says (logins stop after ` +
        `${MAX_CREDENTIAL_REFUSALS} refusals in a row, counted by every process on the state dir)`,
    };
  if (e.stopped)
    return {
      level: 'error',
      msg: `login stopped: earlier refused logins of ${user} stopped the logins; no login is sent until err's fix`,
    };
  if (e.source === 'file') return { level: 'warn', msg: 'no API token: the token file is read again before each call' };
  return { level: 'warn', msg: 'no API token: the login failed; tried again after a backoff' };
}
