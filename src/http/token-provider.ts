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
  /** The command is stopping: whatever the source waits for (a login in flight) is abandoned. Absent: nothing waits. */
  stop?(): void;
}

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
