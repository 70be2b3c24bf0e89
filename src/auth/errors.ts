import { CollectorError } from '../errors.js';
import { FAILURE, type Failure, waitOf } from '../failure.js';

/**
 * The login (`POST …/app/oauth/v1/token/`) failed: refused credentials, an unreachable service, an answer without a
 * token. No call can be made until a later login succeeds; the provider waits `retryInMs` (backoff) before trying
 * again.
 */
export class LoginError extends CollectorError {
  override readonly code = 'CDN_ERR_LOGIN';
  constructor(
    readonly url: string,
    readonly problem: string,
    /** The HTTP status of the login's answer, when there was one. */
    readonly status: number | undefined,
    readonly retryInMs: number | undefined,
    options?: ErrorOptions,
  ) {
    super(`login POST ${url} failed: ${problem}`, options);
  }
  [FAILURE](): Failure {
    return { class: 'token', operator: false, ...waitOf(this.retryInMs, 1) };
  }
}

/**
 * The command is stopping: no login starts, and the one in flight was abandoned (a login the service leaves hanging
 * would otherwise hold the stop for its whole timeout, past a container's grace period).
 */
export class LoginStoppedError extends CollectorError {
  override readonly code = 'CDN_ERR_LOGIN_STOPPED';
  constructor(readonly url: string) {
    super(`login POST ${url} not made: the command is stopping`);
  }
}

/** Why a token is not used: undici refuses such a header value before sending (and its pool then stalls). */
export const UNSENDABLE_TOKEN =
  'holds a character no HTTP header can carry (a line break, a control or non-ASCII character): ' +
  'nothing is sent with it';

/** A file holding a secret (a token, a password) cannot be read or its first line is empty. */
abstract class SecretFileError extends CollectorError {
  constructor(
    what: string,
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${what} ${path}: ${problem}`);
  }
}

/** The token file (`api.tokenFile`) cannot be read or is empty, and no earlier token from it is at hand. */
export class TokenFileError extends SecretFileError {
  override readonly code = 'CDN_ERR_TOKEN_FILE';
  constructor(path: string, problem: string) {
    super('token file', path, problem);
  }
  [FAILURE](): Failure {
    return { class: 'token', operator: false };
  }
}

/** The password file cannot be read or its first line is empty (a config error where the config names it). */
export class PasswordFileError extends SecretFileError {
  override readonly code = 'CDN_ERR_PASSWORD_FILE';
  constructor(path: string, problem: string) {
    super('password file', path, problem);
  }
}
