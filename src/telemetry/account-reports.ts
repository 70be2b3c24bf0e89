import type { Logger } from '../log.js';
import type { StandingChange } from '../sources/common/account-standing.js';
import type { Telemetry } from './telemetry.js';

/** The /healthz condition of an account an API refuses: `account:<name>` (also `cdn_collector_unhealthy`). */
export const accountCondition = (account: string): string => `account:${account}`;

/**
 * An account refused by an API, and its end, to the log and /healthz (whose conditions /metrics exposes as well):
 * one error line when the refusal starts, one info line if it ends; `status` reads the same standing through the
 * daemon's report.
 */
export function reportAccountStanding(telemetry: Telemetry, log: Logger, change: StandingChange): void {
  const { account, refusal } = change;
  const fields = { account, api: refusal.api, reason: refusal.reason };
  if (change.kind === 'answered') {
    telemetry.condition(accountCondition(account), undefined);
    log.info(fields, `the ${refusal.api} API answers for account ${account} again`);
    return;
  }
  const since = new Date(refusal.since).toISOString();
  telemetry.condition(
    accountCondition(account),
    `refused by the ${refusal.api} API since ${since} (${refusal.reason}): nothing of it is confirmed`,
  );
  log.error(
    fields,
    `account ${account} is refused by the ${refusal.api} API (${refusal.reason}): the token may not read it, so none ` +
      'of its windows is confirmed as collected; check accounts in the config and what the token may read',
  );
}
