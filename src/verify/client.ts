import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
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
  /**
   * Withdraws the request (Ctrl-C): the daemon, which finds it gone within a second, ends the verify and drops its
   * calls waiting for quota. Rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/**
 * Hands a verify to the daemon holding the state directory (verify/requests.ts) and waits for its report. Throws when
 * no daemon takes the request, or with the daemon's error when the verify failed. The request is removed however it
 * ends, which is what tells the daemon that nobody waits for it any more.
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
      options.signal?.throwIfAborted();
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
      await sleep(options.pollMs ?? 300, undefined, options.signal ? { signal: options.signal } : {});
    }
  } finally {
    await removeVerifyRequest(stateDir, id).catch(() => {});
  }
}
