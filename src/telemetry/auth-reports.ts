import type { AuthEvent } from '../auth/provider.js';
import type { Logger } from '../log.js';
import type { Telemetry } from './telemetry.js';

/** The /healthz condition set while no token can be had (a failed login, an unreadable token file). */
export const AUTH_CONDITION = 'auth';

/**
 * Token events to the log and /healthz. A line never carries a token or a password: the error messages are built
 * free of them and pass the secret redactor besides.
 */
export function reportAuthEvent(telemetry: Telemetry, log: Logger, e: AuthEvent): void {
  if (e.type === 'obtained') {
    telemetry.condition(AUTH_CONDITION, undefined);
    if (e.lifetimeAssumed)
      log.warn(
        { source: e.source, field: 'lifetime', lifetimeMs: e.lifetimeMs },
        "the login's answer has no usable `lifetime` (missing or not a number): the default is assumed, and the " +
          'token is renewed at a fraction of it or when a call proves it dead',
      );
    if (e.expired) {
      log.warn(
        { source: e.source, field: 'lifetime', lifetimeMs: e.lifetimeMs },
        "the login's answer says `lifetime` 0 or less: that token expires now and is not used; logging in again",
      );
      return;
    }
    const lifetime = e.lifetimeMs === undefined ? {} : { lifetimeMs: e.lifetimeMs, lifetimeAssumed: e.lifetimeAssumed };
    if (e.reused)
      log.info(
        { source: e.source, ...lifetime },
        'logged in: the service handed back the token in use; renewed when it expires',
      );
    else
      log.info(
        { source: e.source, ...lifetime },
        e.source === 'login' ? 'logged in: new API token' : 'API token read from its file',
      );
    return;
  }
  telemetry.condition(AUTH_CONDITION, e.error.message);
  const fields = {
    source: e.source,
    code: (e.error as { code?: string }).code,
    err: e.error.message,
    retryInMs: e.retryInMs,
  };
  if (e.stopped) {
    log.error(
      fields,
      'login stopped: the service refused the credentials; fix api.username / api.password (CDN_USERNAME, ' +
        'CDN_PASSWORD) or the password file, which is read again before each try',
    );
  } else {
    log.warn(fields, 'no API token');
  }
}
