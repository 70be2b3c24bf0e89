import { monotonicClock, systemClock, type Clock } from '../clock.js';
import type { Sleeper } from './types.js';
import { whenAborted } from '../abort.js';

/**
 * The sleeper a limiter on `clock` needs: the system clock (and its monotonic twin) and a clock running at a known
 * `speed` (ScaledClock) are
 * slept on exactly with one real timer (a 250 ms poll would overshoot a scaled wait by 250 ms × speed); any other
 * clock (ManualClock, moved by hand) is polled.
 */
export function sleeperFor(clock: Clock): Sleeper {
  if (clock === systemClock || clock === monotonicClock) return pollingSleeper(Number.POSITIVE_INFINITY);
  const speed = (clock as { speed?: unknown }).speed;
  if (typeof speed === 'number' && speed > 0) {
    const real = pollingSleeper(Number.POSITIVE_INFINITY);
    return (ms, signal) => real(ms / speed, signal);
  }
  return pollingSleeper();
}

/**
 * Real timers, each sleep capped at `pollMs`: callers re-check their clock after waking, so a clock that runs faster
 * than real time (ScaledClock in demos) or is moved by hand (ManualClock) is noticed within `pollMs`.
 */
export function pollingSleeper(pollMs = 250): Sleeper {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(
        () => {
          stopListening?.();
          resolve();
        },
        // setTimeout takes at most 2^31-1 ms; the caller re-checks its clock and sleeps again.
        Math.max(0, Math.min(ms, pollMs, 2 ** 31 - 1)),
      );
      const stopListening =
        signal &&
        whenAborted(signal, () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
    });
}

/** Sleeps until `clock` reaches `at` (rejects when `signal` aborts). */
export async function sleepUntil(clock: Clock, sleep: Sleeper, at: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  for (let now = clock.now(); now < at; now = clock.now()) await sleep(at - now, signal);
}
