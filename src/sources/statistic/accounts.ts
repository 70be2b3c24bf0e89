import type { Requester } from '../../contracts/requester.js';
import { DAY, MINUTE } from '../../time.js';
import { StatisticClient } from './client.js';

/**
 * How far back discovery looks. The spec says `/accounts` groups by account; whether an account without traffic in
 * the window appears is not shown (the simulator leaves it out), so a day: an account idle for a day has nothing to
 * collect yet and is found on the first discovery after its traffic starts.
 */
export const DISCOVERY_WINDOW_MS = DAY;

/**
 * The token's accounts, read from the `/accounts` grouping of the last day (spec A2: it groups the token's accounts;
 * one call per page of 100, each on the statistic quota). Sorted, without duplicates or blank names.
 */
export async function readTokenAccounts(http: Requester, now: number, language?: string): Promise<string[]> {
  const end = Math.floor(now / MINUTE) * MINUTE;
  const names = new Set<string>();
  // Account names do not depend on the language: it is sent only when configured (as every other call).
  const client = new StatisticClient(http, language === undefined ? {} : { language });
  for await (const rows of client.pages('accounts', { start: end - DISCOVERY_WINDOW_MS, end })) {
    for (const row of rows)
      if (typeof row.account === 'string' && row.account.trim() === row.account && row.account !== '')
        names.add(row.account);
  }
  return [...names].sort();
}
