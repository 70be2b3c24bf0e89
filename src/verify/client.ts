import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';
import { CollectorError } from '../errors.js';
import { HandOverNotTakenError } from '../state/hand-over-files.js';
import { VerifyGaveUpError } from './give-up.js';
import {
  readVerifyResult,
  removeVerifyRequest,
  writeVerifyRequest,
  type HandedVerifyReport,
  type VerifyRequest,
} from './requests.js';

export interface VerifyHandOverOptions {
  /** A daemon polls every second; one that has not answered by then does not take requests. */
  pickupTimeoutMs?: number;
  pollMs?: number;
  /** Stamps the request and times the pick-up; default: system time. */
  clock?: Clock;
}

/**
 * Hands a verify to the daemon holding the state directory (verify/requests.ts) and waits for its report. Throws when
 * no daemon takes the request, or with the daemon's error when the verify failed.
 */
export async function handOverVerify(
  stateDir: string,
  request: Omit<VerifyRequest, 'id' | 'requestedAt'>,
  options: VerifyHandOverOptions = {},
): Promise<HandedVerifyReport> {
  const clock = options.clock ?? systemClock;
  const requestedAt = clock.now();
  const id = `${requestedAt}-${randomUUID().slice(0, 8)}`;
  await writeVerifyRequest(stateDir, { ...request, id, requestedAt });
  const pickupBy = requestedAt + (options.pickupTimeoutMs ?? 15_000);
  try {
    for (;;) {
      const result = await readVerifyResult(stateDir, id);
      if (result?.state === 'done' && result.report) return result.report;
      if (result?.state === 'failed') {
        // The daemon's error, with its code where the command's exit depends on it.
        const { message, code } = result.error ?? { message: 'failed' };
        const text = `the daemon's verify failed: ${message}`;
        throw code === 'CDN_ERR_VERIFY_GAVE_UP' ? new VerifyGaveUpError(text) : new CollectorError(text);
      }
      if (!result && clock.now() > pickupBy) {
        throw new HandOverNotTakenError('verify', 'a backfill');
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 300));
    }
  } finally {
    await removeVerifyRequest(stateDir, id).catch(() => {});
  }
}
