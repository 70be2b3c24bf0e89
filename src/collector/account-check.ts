import { ConfigError, type ConfigProblem } from '../config/loader.js';
import type { CollectorConfig } from '../config/schema.js';
import { nearestName } from '../edit-distance.js';
import type { HttpClient } from '../http/client.js';
import type { Logger } from '../log.js';
import type { AccountStanding } from '../sources/common/account-standing.js';
import { readInventory } from '../sources/accounts.js';
import { describeError } from './errors.js';

/** The inventory's accounts an error line lists at most (a token may read thousands). */
const LISTED_IN_ERROR = 20;

/**
 * Checks the configured accounts against the token's inventory (one call outside every quota) before anything is
 * collected: an account it does not list as active is a ConfigError naming it, the accounts it lists and the nearest
 * of them — otherwise its jobs would fail on every pass, and a job of several accounts would confirm it unread.
 * Without an inventory (404) nothing can be checked here: the standing then watches the APIs' refusals instead. Any
 * other failure (the service unreachable, the login refused) leaves the accounts unchecked, with a warning: the
 * collection reports that failure itself, and a daemon must not refuse to start because the API is down for a moment.
 */
export async function checkConfiguredAccounts(
  config: Pick<CollectorConfig, 'accounts'>,
  http: HttpClient,
  standing: AccountStanding,
  log: Logger,
): Promise<void> {
  if (config.accounts === 'auto') return; // read from the inventory itself
  let listed: string[] | undefined;
  try {
    listed = await readInventory(http);
  } catch (err) {
    log.warn(
      { err: describeError(err) },
      'configured accounts not checked against the inventory: it could not be read',
    );
    return;
  }
  standing.inventoryRead(listed);
  if (listed === undefined) {
    log.info(
      'no account inventory (404): the configured accounts are not checked at start; an account an API refuses is ' +
        'reported as refused and never confirmed',
    );
    return;
  }
  const problems = config.accounts.flatMap((account, i): ConfigProblem[] =>
    listed.includes(account) ? [] : [{ field: `accounts.${i}`, message: notListed(account, listed) }],
  );
  if (problems.length > 0) throw new ConfigError(problems);
}

function notListed(account: string, listed: readonly string[]): string {
  if (listed.length === 0) return `"${account}" is not an active account of the token: the inventory lists none`;
  const shown = listed.slice(0, LISTED_IN_ERROR).join(', ');
  const more = listed.length > LISTED_IN_ERROR ? ` and ${listed.length - LISTED_IN_ERROR} more` : '';
  return (
    `"${account}" is not an active account of the token (the inventory lists ${shown}${more}); ` +
    `nearest: "${nearestName(account, listed)}"`
  );
}
