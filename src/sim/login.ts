import { randomBytes } from 'node:crypto';
import { MINUTE } from '../time.js';
import { BAN_AFTER_REFUSALS, BAN_MS, LOGIN_LIFETIME_MS, LOGINS_PER_MINUTE } from '../spec/login.js';
import type { TokenGrant } from './auth.js';
import type { SimReply } from './routes/types.js';

export interface SimLogin {
  username: string;
  password: string;
  /** Lifetime of each issued token on the simulator's clock; default the real service's ~6 h. */
  tokenLifetimeMs?: number;
  /** A login while the user's last token lives hands that token back, with the time it has left. */
  reuseTokens?: boolean;
  /** A login drops the user's earlier tokens at once (as another client's login rotates them on some services). */
  rotateTokens?: boolean;
  /**
   * What the next logins answer as `lifetime`, in order, before the real one: a number of ms (0 or less: the token
   * is issued already expired), a string, or null (the key left out; the token then lives `tokenLifetimeMs`).
   */
  lifetimeAnswers?: Array<number | string | null>;
}

type Issue = (token: string, grant: Omit<TokenGrant, 'accounts'>) => void;

/**
 * The login (`POST /app/oauth/v1/token/`, see src/spec/login.ts), as strict as the real service: the body is read as a
 * form whatever its Content-Type (a JSON body has no form fields: 400), refusals carry no body, seven wrong passwords
 * in a row ban the account for three hours (right ones included), and more than 20 logins a minute are answered 429.
 * The answer's `lifetime` is the time the token has LEFT; with `reuseTokens` a login while the user's token lives
 * hands that token back. Its calls count against one quota per user, not per token — a fresh token must not mean a
 * fresh quota, or the simulator would hide a client that renews its way past a 429.
 */
export class SimLoginService {
  /** Logins answered, any outcome (tests). */
  answered = 0;
  /** Logins answered 401 (wrong credentials) or 403 (banned). */
  refused = 0;
  private wrongInARow = 0;
  private bannedUntil = Number.NEGATIVE_INFINITY;
  private readonly recent: number[] = [];
  private live: { token: string; expiresAt: number } | undefined;

  constructor(private readonly config: SimLogin) {}

  handle(rawBody: string, now: number, issue: Issue): SimReply {
    this.answered++;
    while (this.recent.length > 0 && this.recent[0]! <= now - MINUTE) this.recent.shift();
    if (this.recent.length >= LOGINS_PER_MINUTE) return { status: 429, body: undefined };
    this.recent.push(now);
    const form = new URLSearchParams(rawBody);
    const username = form.get('username');
    const password = form.get('password');
    if (!username || password === null) return { status: 400, body: undefined };
    if (username !== this.config.username) return this.refuse(401);
    if (now < this.bannedUntil) return this.refuse(403);
    if (password !== this.config.password) {
      if (++this.wrongInARow >= BAN_AFTER_REFUSALS) this.bannedUntil = now + BAN_MS;
      return this.refuse(401);
    }
    this.wrongInARow = 0;
    const scripted = this.config.lifetimeAnswers?.shift();
    const answer = (token: string, expiresAt: number): SimReply => {
      const lifetime = scripted === undefined ? expiresAt - now : scripted;
      return { status: 200, body: { status: 200, person_id: 1, token, ...(lifetime === null ? {} : { lifetime }) } };
    };
    if (this.config.reuseTokens && this.live && now < this.live.expiresAt)
      return answer(this.live.token, this.live.expiresAt);
    const expiresAt =
      now + (typeof scripted === 'number' ? scripted : (this.config.tokenLifetimeMs ?? LOGIN_LIFETIME_MS));
    const token = `sim-login-${randomBytes(12).toString('hex')}`;
    issue(token, { expiresAt, quotaKey: `user:${this.config.username}` });
    this.live = { token, expiresAt };
    return answer(token, expiresAt);
  }

  /** Whether the account is banned now (tests). */
  banned(now: number): boolean {
    return now < this.bannedUntil;
  }

  /** Whether a login drops the user's earlier tokens. */
  get rotates(): boolean {
    return this.config.rotateTokens === true;
  }

  /** Ends the live token's reuse (the tokens themselves are expired by the server). */
  forget(): void {
    this.live = undefined;
  }

  private refuse(status: 401 | 403): SimReply {
    this.refused++;
    return { status, body: undefined };
  }
}
