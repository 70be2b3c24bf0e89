/** What the token sources report (runtime.ts turns these into log lines and the `auth` /healthz condition). */
export type AuthEvent =
  | {
      type: 'obtained';
      source: 'login' | 'file';
      lifetimeMs?: number;
      /** The answer had no usable `lifetime` (missing, not a number): the default was assumed. */
      lifetimeAssumed?: boolean;
      reused?: boolean;
      /** Its `lifetime` was 0 or less: the token expires now and is never sent. */
      expired?: boolean;
    }
  | {
      type: 'failed';
      source: 'login' | 'file';
      error: Error;
      retryInMs?: number;
      /** The login's username (not a secret). */
      username?: string;
      /** The service refused the credentials (a 400/401/403 to the login). */
      credentialsRefused?: boolean;
      /** Refused logins in a row, counted by every process on the state dir. */
      refused?: number;
      /** Logins are stopped: none is sent until the operator acts or the pause allows one. */
      stopped?: boolean;
    };
