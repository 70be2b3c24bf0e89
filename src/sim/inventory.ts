import { INVENTORY_ACCOUNTS_PATH } from '../spec/inventory.js';

export { INVENTORY_ACCOUNTS_PATH };

/** An account the token once had, closed since: the inventory lists it, and clients must keep only active ones. */
export const CLOSED_ACCOUNT = 'closed-account';

/**
 * The accounts of a token as the inventory endpoint lists them (src/spec/inventory.ts): each active one the token
 * may read, plus one closed account, so that a client that ignores `status` is caught.
 */
export function inventoryAccounts(accounts: readonly string[]): Array<Record<string, unknown>> {
  return [
    ...accounts.map((name, i) => ({ id: i + 1, name, status: 'active' })),
    { id: accounts.length + 1, name: CLOSED_ACCOUNT, status: 'inactive' },
  ];
}
