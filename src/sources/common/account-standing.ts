import type { Clock } from '../../clock.js';
import { ApiError } from '../../http/errors.js';
import { tokenRefusal } from '../../http/refusal.js';
import { redactSecrets } from '../../secrets.js';
import type { RequestTarget } from '../../spec/inventory.js';

/**
 * A refusal of the account rather than of the token: a 401/403 whose text names the account (statistics `account`),
 * one that a renewed token got again (the token was new, so it is the account it may not read), or one the request
 * layer decided is no access from what the token proved (`noAccess`, where it sets it).
 */
export function isAccountRefusal(err: unknown): err is ApiError {
  if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) return false;
  const decided = (err as { noAccess?: boolean }).noAccess === true;
  return (
    decided ||
    tokenRefusal(err.request.api, err.status, err.description) === undefined ||
    err.tokenRenewal === 'renewed'
  );
}

/** How the log and `status` word a refusal: `HTTP 401 account`. */
export function refusalReason(err: ApiError): string {
  const text = redactSecrets(err.description?.trim().slice(0, 200) ?? '');
  return `HTTP ${err.status}${text ? ` ${text}` : ''}`;
}

/** An API refused an account in a way no new token cures: since when, which API, its answer. */
export interface AccountRefusal {
  api: RequestTarget;
  /** Epoch ms of the first refusal of the run. */
  since: number;
  /** The refusal as the log and `status` word it (`HTTP 401 account`). */
  reason: string;
}

/** What became of an account: refused by an API, or answered again after a refusal. */
export type StandingChange =
  | { kind: 'refused'; account: string; refusal: AccountRefusal }
  | { kind: 'answered'; account: string; refusal: AccountRefusal };

/**
 * Whether the inventory told the configured accounts at start: `listed` (each one checked against it), `absent` (the
 * endpoint answered 404: a white label without it), `unknown` (not asked, or it failed).
 */
export type InventoryStanding = 'listed' | 'absent' | 'unknown';

/**
 * The one home, per runtime, of what is known of the configured accounts: which ones are vouched for (the inventory
 * listed them, or an API answered for them) and which ones an API refused (an account the token may not read). Jobs
 * that read several accounts in one call ask it before confirming an account's checkpoint; the log, /healthz,
 * /metrics and `status` are told of each change through `onChange`.
 */
export class AccountStanding {
  private inventoryState: InventoryStanding = 'unknown';
  private readonly vouched = new Set<string>();
  private readonly refusals = new Map<string, AccountRefusal>();

  constructor(
    private readonly clock: Clock,
    private readonly onChange: (change: StandingChange) => void = () => {},
  ) {}

  get inventory(): InventoryStanding {
    return this.inventoryState;
  }

  /** The inventory's answer at start: the accounts it lists are vouched for. */
  inventoryRead(listed: readonly string[] | undefined): void {
    this.inventoryState = listed === undefined ? 'absent' : 'listed';
    for (const account of listed ?? []) this.vouched.add(account);
  }

  /** `api` answered for `account`: it exists, and a refusal of it by that API is over (another API's stands). */
  answered(account: string, api: RequestTarget): void {
    this.vouched.add(account);
    const refusal = this.refusals.get(account);
    if (!refusal || refusal.api !== api) return;
    this.refusals.delete(account);
    this.onChange({ kind: 'answered', account, refusal });
  }

  /** An API refused `account`; the first refusal of a run is told, later ones keep its `since`. */
  refused(account: string, api: RequestTarget, reason: string): void {
    this.vouched.delete(account);
    if (this.refusals.has(account)) return;
    const refusal = { api, since: this.clock.now(), reason };
    this.refusals.set(account, refusal);
    this.onChange({ kind: 'refused', account, refusal });
  }

  isVouched(account: string): boolean {
    return this.vouched.has(account);
  }

  isRefused(account: string): boolean {
    return this.refusals.has(account);
  }

  /** The accounts refused now, by name. */
  refusedAccounts(): Record<string, AccountRefusal> {
    return Object.fromEntries([...this.refusals].sort(([a], [b]) => a.localeCompare(b)));
  }
}
