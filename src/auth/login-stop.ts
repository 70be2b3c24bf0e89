import { CollectorError } from '../errors.js';
import { BAN_AFTER_REFUSALS, BAN_MS } from '../spec/login.js';
import type { RefusedLogins } from '../state/login-refusals.js';
import { HOUR } from '../time.js';

/**
 * Refused logins in a row (every process on the state dir counted) after which logins stop. The service bans an
 * account for 3 hours after 7 wrong passwords, the portal's included: a second and third refusal rule out a passing
 * glitch, and stopping there leaves the operator tries of their own before the ban.
 */
export const MAX_CREDENTIAL_REFUSALS = 3;

/** Once stopped, one login is tried after this long since the last refusal (unless OPERATOR_TRIES would be spent). */
export const CREDENTIALS_PAUSE_MS = 2 * BAN_MS;

/** Tries before the ban that no automatic login spends: the operator's (the portal, a `--force-login`). */
export const OPERATOR_TRIES = 2;

/** Where the refused logins of one username are counted: the state dir's file, or this process's memory. */
export interface LoginLedger {
  /** Where the count is kept, for the messages (a file path, or "this process"). */
  readonly where: string;
  read(): Promise<RefusedLogins | undefined>;
  /** Replaces the entry (read afresh) with what `change` makes of it; returns the new entry. */
  update(change: (entry: RefusedLogins | undefined) => RefusedLogins | undefined): Promise<RefusedLogins | undefined>;
}

/** A count in this process only (a provider built without a state dir: tests, embedding). */
export class MemoryLoginLedger implements LoginLedger {
  readonly where = 'this process';
  private entry: RefusedLogins | undefined;
  read(): Promise<RefusedLogins | undefined> {
    return Promise.resolve(this.entry);
  }
  update(change: (entry: RefusedLogins | undefined) => RefusedLogins | undefined): Promise<RefusedLogins | undefined> {
    this.entry = change(this.entry);
    return Promise.resolve(this.entry);
  }
}

/** Whether a login may be sent now: yes, or no with the refusals that stopped it and when one try comes by itself. */
export type LoginGate = { open: true } | { open: false; entry: RefusedLogins; nextTryAt: number | undefined };

/**
 * Logins stop after MAX_CREDENTIAL_REFUSALS refusals in a row. One login is tried again CREDENTIALS_PAUSE_MS after
 * the last refusal, as long as OPERATOR_TRIES stay unspent; past that, only the operator reopens them (`forced`: a
 * `--force-login`, or a password that changed since it was refused).
 */
export function loginGate(entry: RefusedLogins | undefined, now: number, forced: boolean): LoginGate {
  if (entry === undefined || entry.refused < MAX_CREDENTIAL_REFUSALS || forced) return { open: true };
  const nextTryAt =
    entry.refused + 1 <= BAN_AFTER_REFUSALS - OPERATOR_TRIES ? entry.lastAt + CREDENTIALS_PAUSE_MS : undefined;
  if (nextTryAt !== undefined && now >= nextTryAt) return { open: true };
  return { open: false, entry, nextTryAt };
}

/** One more refused login. */
export function withRefusal(entry: RefusedLogins | undefined, now: number): RefusedLogins {
  return { refused: (entry?.refused ?? 0) + 1, since: entry?.since ?? now, lastAt: now };
}

/** Wrong passwords the service still takes before its ban, as far as this state dir knows (the portal's not seen). */
export function triesBeforeBan(refused: number): number {
  return Math.max(0, BAN_AFTER_REFUSALS - refused);
}

/** The wrong passwords left before the ban, in the words every message uses. */
export function banText(refused: number): string {
  const left = triesBeforeBan(refused);
  const passwords = `${left} more wrong ${left === 1 ? 'password' : 'passwords'}`;
  return `at most ${passwords} before the service bans the account for ${BAN_MS / HOUR} h`;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What stopped logins are, and how to resume them: one text for the start-up error and the daemon's lines. */
export function stoppedText(username: string, gate: Extract<LoginGate, { open: false }>, fix: string): string {
  const { entry, nextTryAt } = gate;
  const later = nextTryAt === undefined ? '' : `; otherwise one login is tried after ${iso(nextTryAt)}`;
  return (
    `logins of ${username} are stopped: the service refused its credentials ${entry.refused} times in a row ` +
    `since ${iso(entry.since)} (the last at ${iso(entry.lastAt)}; ${banText(entry.refused)}); fix ${fix}, then ` +
    `resume with --force-login once (a login that succeeds clears the count)${later}`
  );
}

/**
 * A command found the logins of its username stopped by earlier refusals (of any process on its state dir) and made
 * no login: a configuration to fix before anything runs (exit 2).
 */
export class LoginsStoppedError extends CollectorError {
  override readonly code = 'CDN_ERR_LOGINS_STOPPED';
  constructor(
    readonly username: string,
    readonly refused: number,
    text: string,
    where: string,
  ) {
    super(`${text} (counted in ${where})`);
  }
}
