import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';
import { CollectorError } from '../errors.js';
import {
  isFinal,
  readStatus,
  removeRequest,
  requestCancel,
  writeRequest,
  type BackfillRequest,
  type BackfillStatus,
} from './requests.js';

export interface HandOverOptions {
  /** Called with each new status the daemon wrote. */
  onStatus?: (status: BackfillStatus) => void;
  /** Asked every poll: true asks the daemon to stop the backfill (Ctrl-C). */
  cancelled?: () => boolean;
  /** A daemon polls every second; one that has not answered by then does not take requests. */
  pickupTimeoutMs?: number;
  pollMs?: number;
  /** Stamps the request and times the pick-up; default: system time. */
  clock?: Clock;
}

/**
 * Hands a backfill to the daemon holding the state directory (see backfill/requests.ts) and follows it to its
 * end: resolves with the final status (a dry run's: its plan). Throws when no daemon takes the request.
 */
export async function handOverBackfill(
  stateDir: string,
  request: Omit<BackfillRequest, 'id' | 'requestedAt'>,
  options: HandOverOptions = {},
): Promise<BackfillStatus> {
  const clock = options.clock ?? systemClock;
  const requestedAt = clock.now();
  const full: BackfillRequest = { ...request, id: `${requestedAt}-${randomUUID().slice(0, 8)}`, requestedAt };
  await writeRequest(stateDir, full);
  const pickupBy = clock.now() + (options.pickupTimeoutMs ?? 15_000);
  let cancelSent = false;
  let lastUpdate = -1;
  try {
    for (;;) {
      const status = await readStatus(stateDir, full.id);
      if (status && status.updatedAt !== lastUpdate) {
        lastUpdate = status.updatedAt;
        options.onStatus?.(status);
      }
      if (status && isFinal(status.state)) return status;
      if (!status && clock.now() > pickupBy) {
        throw new CollectorError(
          'the process holding the state directory did not take the backfill request: it is not a running daemon ' +
            '(another backfill?). Wait for it to end, or stop it',
        );
      }
      if (!cancelSent && options.cancelled?.()) {
        cancelSent = true;
        await requestCancel(stateDir, full.id);
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 300));
    }
  } finally {
    await removeRequest(stateDir, full.id).catch(() => {});
  }
}
