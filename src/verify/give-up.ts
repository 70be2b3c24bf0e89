import { failureReason } from '../telemetry/api-watch.js';
import { formatDuration } from '../backfill/eta.js';
import type { Clock } from '../clock.js';
import { CollectorError } from '../errors.js';
import type { Gate } from '../http/client.js';
import type { ApiName } from '../spec/apis.js';

/** An API kept failing for `verify.giveUpAfter`: the check cannot finish, and waiting on would spend the quota. */
export class VerifyGaveUpError extends CollectorError {
  override readonly code = 'CDN_ERR_VERIFY_GAVE_UP';
}

/**
 * `gate` for a command that must end: once an API has failed every call for `afterMs` (`failingSince`, telemetry's
 * record of failing APIs; 429s are waits, not failures), the next failure aborts the call and every call queued
 * behind it with a
 * VerifyGaveUpError naming the API, the reason and the setting. The limiter alone retries each call up to its deadline.
 */
export function giveUpGate(
  gate: (signal: AbortSignal) => Gate,
  failingSince: (api: ApiName) => number | undefined,
  clock: Clock,
  afterMs: number,
): Gate {
  const giveUp = new AbortController();
  const inner = gate(giveUp.signal);
  return <R>(api: ApiName, send: () => Promise<R>) =>
    inner(api, () =>
      send().catch((err: unknown) => {
        const since = failingSince(api);
        if (since !== undefined && clock.now() - since >= afterMs && !giveUp.signal.aborted) {
          const failedFor = formatDuration(clock.now() - since);
          const failing = `${api} API failed every call for ${failedFor} (${failureReason(err)})`;
          giveUp.abort(new VerifyGaveUpError(`${failing}: giving up (verify.giveUpAfter ${formatDuration(afterMs)})`));
        }
        throw err;
      }),
    );
}
