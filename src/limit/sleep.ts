import type { Clock } from '../clock.js';
import type { Sleeper } from './types.js';

/**
 * Real timers, each sleep capped at `pollMs`: callers re-check their clock after waking, so a clock that runs faster
 * than real time (ScaledClock in demos) or is moved by hand (ManualClock) is noticed within `pollMs`.
 */
export function pollingSleeper(pollMs = 250): Sleeper {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, Math.min(ms, pollMs)),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

/** Sleeps until `clock` reaches `at` (rejects when `signal` aborts). */
export async function sleepUntil(clock: Clock, sleep: Sleeper, at: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  for (let now = clock.now(); now < at; now = clock.now()) await sleep(at - now, signal);
}
