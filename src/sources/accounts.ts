import { z } from 'zod';
import type { Requester } from '../contracts/requester.js';
import { ApiError } from '../http/errors.js';
import { ACTIVE_ACCOUNT_STATUS, INVENTORY_ACCOUNTS_PATH } from '../spec/inventory.js';
import { readTokenAccounts } from './statistic/accounts.js';

/** Lenient about everything but what becomes a job: a name and a status, both strings. */
const inventorySchema = z.array(z.object({ name: z.string(), status: z.string() }).passthrough());

export interface TokenAccounts {
  accounts: string[];
  /** Where they were read: the inventory endpoint, or the statistics grouping where the inventory is missing. */
  from: 'inventory' | 'statistic';
}

/**
 * The token's accounts for `accounts: auto`: the inventory's active ones (one call outside every quota). Only where
 * the endpoint does not exist (404: a white label without it) are they read from the statistics `/accounts` grouping,
 * on the statistic quota — and that lists only accounts with traffic in the last day.
 */
export async function readAccounts(http: Requester, now: number, language?: string): Promise<TokenAccounts> {
  const listed = await readInventory(http);
  if (listed !== undefined) return { accounts: listed, from: 'inventory' };
  return { accounts: await readTokenAccounts(http, now, language), from: 'statistic' };
}

/**
 * The inventory's active accounts of the token, sorted, without duplicates or blank names; undefined where the
 * endpoint does not exist (404). Any other failure is thrown.
 */
export async function readInventory(http: Requester): Promise<string[] | undefined> {
  try {
    const res = await http.request({
      api: 'inventory',
      method: 'GET',
      path: INVENTORY_ACCOUNTS_PATH,
      schema: inventorySchema,
    });
    const active = res.body.filter((a) => a.status.trim().toLowerCase() === ACTIVE_ACCOUNT_STATUS).map((a) => a.name);
    return [...new Set(active.filter((n) => n.trim() === n && n !== ''))].sort();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}
