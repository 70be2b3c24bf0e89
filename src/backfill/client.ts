import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';
import { CollectorError } from '../errors.js';
import { HandOverNotTakenError } from '../state/hand-over-files.js';
import { lockHolder } from '../state/lock.js';
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
  /** The live daemon holding the state directory, asked every second (default: its lock file tells). */
  holder?: () => Promise<{ pid: number } | undefined>;
}

/** How often the follower asks whether the daemon still lives: a kill -9 leaves no status behind to say so. */
const HOLDER_CHECK_MS = 1_000;

/**
 * The daemon that took (or was to take) the backfill is gone: killed, crashed, its host lost. Its request is
 * withdrawn; the spans it confirmed are checkpointed, so the same command resumes the rest.
 */
export class DaemonGoneError extends CollectorError {
  override readonly code = 'CDN_ERR_DAEMON_GONE';
  constructor(
    readonly stateDir: string,
    readonly pid: number | undefined,
    readonly spansDone: number | undefined,
  ) {
    super(
      `the daemon${pid === undefined ? '' : ` (pid ${pid})`} holding ${stateDir} is gone` +
        `${spansDone === undefined ? ' before it took the backfill' : ` after ${spansDone} spans of the backfill`}`,
    );
  }
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
  const holder = options.holder ?? (() => lockHolder(stateDir));
  let cancelSent = false;
  let lastUpdate = -1;
  let holderCheckedAt = clock.now();
  try {
    for (;;) {
      const status = await readStatus(stateDir, full.id);
      if (status && status.updatedAt !== lastUpdate) {
        lastUpdate = status.updatedAt;
        options.onStatus?.(status);
      }
      if (status && isFinal(status.state)) return status;
      if (clock.now() - holderCheckedAt >= HOLDER_CHECK_MS) {
        holderCheckedAt = clock.now();
        // A daemon that restarted meanwhile holds the lock again and resumes the request: keep following it.
        if (!(await holder())) throw new DaemonGoneError(stateDir, status?.pid, status?.spansDone);
      }
      if (!status && clock.now() > pickupBy) {
        throw new HandOverNotTakenError('backfill', 'another backfill');
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
