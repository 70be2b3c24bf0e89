import { registerSecret } from '../secrets.js';

/**
 * Where the HTTP client gets its token. The client asks per request (`current`), so a token that changed — a file
 * rewritten by a sidecar, a login renewed before expiry — is used from the next call on; and when a call is refused
 * as invalid or expired, it asks for a fresh one (`renew`) and retries that call once.
 */
export interface TokenProvider {
  /** Where the token comes from, as an operator configures it (named in the hint of an uncured refusal). */
  readonly source: string;
  /** Before a command starts: throws if it must not (logins stopped by earlier refusals). Absent: nothing to check. */
  checkStart?(): Promise<void>;
  /** The token to send now; may read a file or log in first. */
  current(): Promise<string>;
  /**
   * Whether a refusal of `refused` would be answered with a renewal (decided before asking, so that a refusal the
   * renewal is about to cure is not reported as the operator's problem). Absent: never.
   */
  willRenew?(refused: string): boolean;
  /**
   * `refused` was refused as invalid or expired (the HttpClient decided so, from its text or from what the token
   * proved): a fresh token, or `refused` itself when no other can be had (the caller then does not retry). Absent:
   * the token cannot change (a static token).
   */
  renew?(refused: string): Promise<string>;
}

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

/** A token given as-is (config `api.token`, `CDN_TOKEN`, a CLI flag): never renewed. */
export class StaticTokenProvider implements TokenProvider {
  constructor(
    private readonly token: string,
    readonly source = 'api.token (CDN_TOKEN)',
  ) {
    registerSecret(token);
  }
  current(): Promise<string> {
    return Promise.resolve(this.token);
  }
}

/** A plain string (the CLI commands, tests) or a provider. */
export function asTokenProvider(token: string | TokenProvider): TokenProvider {
  return typeof token === 'string' ? new StaticTokenProvider(token) : token;
}
