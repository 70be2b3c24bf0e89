import type { Clock } from '../../src/clock.js';
import type { Sleeper } from '../../src/limit/types.js';

interface Timer {
  at: number;
  seq: number;
  resolve(): void;
}

/**
 * A clock and a sleeper that share virtual time: `run(promise)` lets pending work settle, then jumps straight to the
 * next timer, until the promise settles. Minutes of limiter behaviour run in milliseconds, deterministically.
 */
export class VirtualTime implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2024, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  readonly sleep: Sleeper = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = { at: this.current + Math.max(0, ms), seq: this.seq++, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((t) => t !== timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });

  /** Advances virtual time timer by timer until `promise` settles; throws if nothing is left to wait for. */
  async run<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      await settle();
      if (settled) return promise;
      const next = this.timers.reduce<Timer | undefined>(
        (best, t) => (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq) ? t : best),
        undefined,
      );
      if (!next) throw new Error('virtual time: the promise waits for nothing that is scheduled');
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.at);
      next.resolve();
    }
  }

  /** Lets every pending continuation run without moving time. */
  async settle(): Promise<void> {
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
