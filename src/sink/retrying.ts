import { intervalClock, type Clock } from '../clock.js';
import { isRetryable } from '../failure.js';
import { backoffDelay, DEFAULT_BACKOFF } from '../limit/backoff.js';
import { sleeperFor, sleepUntil } from '../limit/sleep.js';
import type { Sleeper } from '../limit/types.js';
import type { Point } from '../points.js';
import { SinkError } from './errors.js';
import type { Sink, WriteResult } from './types.js';

export interface RetryingSinkOptions {
  /** The collector's clock: the deadline and the waits run on it (its monotonic twin for the system clock). */
  clock: Clock;
  /** How waiting is done (tests pass virtual time). Default: `sleeperFor(clock)`, as the limiter does. */
  sleep?: Sleeper;
  /** How long one `write` is retried, its waits included, before its last error is thrown. */
  deadlineMs: number;
  /** A graceful stop: no retry after it, and a wait under way ends at once (a backoff wait can last 30 s). */
  stop?: AbortSignal | undefined;
  onRetry?: (err: SinkError, waitMs: number) => void;
}

/**
 * `sink` written through a short database outage: a retryable SinkError (network, 5xx, 429, timeout) is retried with
 * full-jitter backoff until `deadlineMs` has passed or `stop` aborts (waiting included); then the last error is thrown
 * and the caller's span stays unconfirmed (collected again on the next pass). Replays are idempotent: same series and
 * time. `flush` and `close` are the wrapped sink's.
 */
export function retryingSink(sink: Sink, options: RetryingSinkOptions): Sink {
  return {
    name: sink.name,
    write: (points) => writeWithRetry(sink, points, options),
    flush: () => sink.flush(),
    close: () => sink.close(),
  };
}

async function writeWithRetry(
  sink: Sink,
  points: readonly Point[],
  options: RetryingSinkOptions,
): Promise<WriteResult> {
  const clock = intervalClock(options.clock);
  const sleep = options.sleep ?? sleeperFor(clock);
  const giveUpAt = clock.now() + options.deadlineMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await sink.write(points);
    } catch (err) {
      const waitMs = Math.max(200, backoffDelay(attempt, { ...DEFAULT_BACKOFF, baseMs: 1000 }, Math.random));
      const retry = err instanceof SinkError && isRetryable(err) && !options.stop?.aborted;
      if (!retry || clock.now() + waitMs > giveUpAt) throw err;
      options.onRetry?.(err, waitMs);
      const waited = await sleepUntil(clock, sleep, clock.now() + waitMs, options.stop).then(
        () => true,
        () => false,
      );
      if (!waited) throw err;
    }
  }
}
