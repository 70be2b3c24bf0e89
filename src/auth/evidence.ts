import { classify } from '../failure.js';
import { ApiError } from '../http/errors.js';
import type { TokenProvider } from './provider.js';

/**
 * What calls have proven about their tokens, for a refusal whose text does not say whether the token died or the
 * account may not be read (metrics' 403 "Invalid token or no access"). A token never comes back to life: if a call
 * with it succeeded that was sent after the refused call, the token was alive when it was refused, so the refusal
 * means no access to what that call asked for, and no new token would cure it. Calls are ordered by when they were
 * sent (a sequence number: two calls in the same millisecond are still ordered).
 *
 * What was proven about an account (an API refused it while its token lived) is kept by scope (`api account`) until a
 * call of that scope succeeds: tokens of one user share their access, so a later refusal of that scope says nothing
 * about the token either, and it costs no login.
 */
export class TokenEvidence {
  private sequence = 0;
  /** Token → the sequence number of the latest-sent call with it that succeeded. */
  private readonly succeeded = new Map<string, number>();
  /** Calls under way: sequence number → token and the promise that settles with the call. */
  private readonly underway = new Map<number, { token: string; settled: Promise<void> }>();
  /** Scopes (`api account`) refused while their token was proven alive, or refused again with a renewed token. */
  private readonly refusedScopes = new Set<string>();
  /** Refusals judged before anything proved their token alive: a later proof still marks their scope. */
  private unproven: Array<{ scope: string; ticket: CallTicket }> = [];

  /**
   * Whether a failed call earns a renewal and a retry, tagging a refusal with what follows (`tokenRenewal`) and with
   * what it means (`noAccess`). A refusal whose text names a dead token is renewed once. One the text leaves open:
   * if a call with the same token succeeded that was sent after it, the token lives and the account may not be read
   * (no renewal); the same if that account was refused so before, or if the token refused is the renewed one.
   * Otherwise one renewal and one retry.
   */
  async judge(err: unknown, call: RefusedCall): Promise<boolean> {
    const { refusal } = classify(err);
    if (!refusal || !(err instanceof ApiError)) return false;
    const { ticket, scope, retry, tokens } = call;
    if (refusal === 'possible') {
      const proven = retry || this.knownRefused(scope) || (await this.aliveAfter(ticket));
      if (proven) {
        this.refusedScopes.add(scope);
        err.noAccess = true;
      }
      if (proven && !retry) return false;
      if (!proven) this.unproven.push({ scope, ticket });
      if (this.unproven.length > 64) this.unproven.shift();
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

  /** The call of `ticket` ended; a success proves its token alive at least until it was sent. */
  settled(ticket: CallTicket, ok: boolean, scope?: string): void {
    this.underway.delete(ticket.seq);
    ticket.settle();
    if (!ok) return;
    if ((this.succeeded.get(ticket.token) ?? 0) < ticket.seq) this.succeeded.set(ticket.token, ticket.seq);
    if (scope !== undefined) this.refusedScopes.delete(scope);
    const proven = this.unproven.filter((r) => r.ticket.token === ticket.token && r.ticket.seq < ticket.seq);
    for (const r of proven) if (r.scope !== scope) this.refusedScopes.add(r.scope);
    if (proven.length > 0) this.unproven = this.unproven.filter((r) => !proven.includes(r));
    // A handful of tokens at most live at once; the oldest entries are for tokens long renewed.
    while (this.succeeded.size > 8) this.succeeded.delete(this.succeeded.keys().next().value!);
  }

  /**
   * Whether the token of the refused call `ticket` lived after that call was sent: a success with it sent later. The
   * calls with the same token sent later and still under way are waited for (each ends by its own deadline), so
   * the answer does not depend on which of two concurrent calls came back first.
   */
  async aliveAfter(ticket: CallTicket): Promise<boolean> {
    const later = [...this.underway].filter(([seq, call]) => seq > ticket.seq && call.token === ticket.token);
    await Promise.all(later.map(([, call]) => call.settled));
    return (this.succeeded.get(ticket.token) ?? 0) > ticket.seq;
  }

  /** Whether `scope` was refused before with a token proven alive (and has not succeeded since). */
  knownRefused(scope: string): boolean {
    return this.refusedScopes.has(scope);
  }
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
