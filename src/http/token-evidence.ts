import { classify } from '../failure.js';
import { ApiError } from './errors.js';
import type { TokenProvider } from './token-provider.js';

/**
 * What calls have proven about their tokens, for a refusal whose text does not say whether the token died or the
 * account may not be read (metrics' 403 "Invalid token or no access"). A token never comes back to life: if a call
 * with it for another scope (another account, another API) succeeded after the refused call was sent, the token was
 * alive then, so the refusal means no access to what that call asked for, and no new token would cure it. A success
 * of the same scope proves nothing of the kind (the same account served and refused: the token died in between).
 * Sends and answers are ordered by one sequence (two in the same millisecond are still ordered).
 *
 * What was proven about a scope (`api account`) is kept until a call of that scope succeeds: tokens of one user share
 * their access, so a later refusal of that scope says nothing about the token either, and it costs no login.
 */
export class TokenEvidence {
  private sequence = 0;
  /** Token → its latest success, and its latest of another scope than that one (answer order). */
  private readonly succeeded = new Map<string, { latest: Success; other?: Success }>();
  /** Calls under way: sequence number → token and the promise that settles with the call. */
  private readonly underway = new Map<number, { token: string; settled: Promise<void> }>();
  /** Scopes refused while their token was proven alive, or refused again with a renewed token. */
  private readonly refusedScopes = new Set<string>();
  /** Refusals judged before anything proved their token alive: a later proof still marks their scope. */
  private unproven: Array<{ scope: string; ticket: CallTicket }> = [];

  /**
   * Whether a failed call earns a renewal and a retry, tagging a refusal with what follows (`tokenRenewal`) and with
   * what it means (`noAccess`). A refusal whose text names a dead token is renewed once. One the text leaves open is
   * no access (no renewal) if the token was proven alive after the call was sent, if that scope was refused so
   * before, or if the token refused is the renewed one; otherwise it earns one renewal and one retry.
   */
  async judge(err: unknown, call: RefusedCall): Promise<boolean> {
    const { refusal } = classify(err);
    if (!refusal || !(err instanceof ApiError)) return false;
    const { ticket, scope, retry, tokens } = call;
    if (refusal === 'possible') {
      const proven = retry || this.refusedScopes.has(scope) || (await this.aliveAfter(ticket, scope));
      if (proven) {
        this.refusedScopes.add(scope);
        err.noAccess = true;
      } else {
        this.unproven.push({ scope, ticket });
        if (this.unproven.length > 64) this.unproven.shift();
      }
      if (proven && !retry) return false;
    }
    if (retry) {
      err.tokenRenewal = 'renewed';
      return false;
    }
    err.tokenRenewal = tokens.willRenew?.(ticket.token) ? 'renewing' : undefined;
    return true;
  }

  /** A call with `token` goes out now: its ticket, to be settled with its outcome. */
  sent(token: string): CallTicket {
    const seq = ++this.sequence;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.underway.set(seq, { token, settled });
    return { seq, token, settle };
  }

  /** The call of `ticket` (about `scope`) ended; a success proves its token alive when it was answered. */
  settled(ticket: CallTicket, ok: boolean, scope: string): void {
    this.underway.delete(ticket.seq);
    ticket.settle();
    if (!ok) return;
    const success = { scope, seq: ++this.sequence };
    const known = this.succeeded.get(ticket.token);
    const other = known && known.latest.scope !== scope ? known.latest : known?.other;
    this.succeeded.set(ticket.token, { latest: success, ...(other ? { other } : {}) });
    this.refusedScopes.delete(scope);
    const proven = this.unproven.filter((r) => r.ticket.token === ticket.token && r.scope !== scope);
    for (const r of proven) this.refusedScopes.add(r.scope);
    if (proven.length > 0) this.unproven = this.unproven.filter((r) => !proven.includes(r));
    // A handful of tokens at most live at once; the oldest entries are for tokens long renewed.
    while (this.succeeded.size > 8) this.succeeded.delete(this.succeeded.keys().next().value!);
  }

  /**
   * Whether the token of the refused call `ticket` lived after that call was sent: a success of another scope with
   * it answered later. The calls with the same token still under way are waited for (each ends by its own deadline):
   * their answers come after the refused call was sent, so the verdict does not depend on which came back first.
   */
  private async aliveAfter(ticket: CallTicket, scope: string): Promise<boolean> {
    const pending = [...this.underway.values()].filter((call) => call.token === ticket.token);
    await Promise.all(pending.map((call) => call.settled));
    const known = this.succeeded.get(ticket.token);
    const elsewhere = known && known.latest.scope !== scope ? known.latest : known?.other;
    return elsewhere !== undefined && elsewhere.seq > ticket.seq;
  }
}

interface Success {
  scope: string;
  seq: number;
}

/** A failed call to judge: its ticket, its scope (`api account`), whether it was the retry, its token source. */
export interface RefusedCall {
  ticket: CallTicket;
  scope: string;
  retry: boolean;
  tokens: TokenProvider;
}

/** One call sent with a token, as TokenEvidence orders it. */
export interface CallTicket {
  readonly seq: number;
  readonly token: string;
  readonly settle: () => void;
}
