import type { Point } from '../points.js';

/**
 * One sink write for the spans of several jobs' passes that run together (a scheduled pass of an API, `run --once`)
 * instead of one write per span: each job hands its span's points in and waits; the points go out in one write once
 * every job still in the pass has a span waiting (or has ended its pass), or once `maxPoints` are waiting (a catch-up
 * stays bounded). Every waiting span learns the write's outcome: records before state still holds per span — the
 * caller confirms its checkpoint only after its `write` resolved, and a failed write rejects every span it carried.
 */
export class PassWrites {
  private readonly waiting = new Map<string, Waiting>();
  private readonly active: Set<string>;
  private buffered = 0;

  constructor(
    keys: Iterable<string>,
    private readonly writeAll: (points: Point[], keys: string[]) => Promise<void>,
    private readonly maxPoints: number,
  ) {
    this.active = new Set(keys);
  }

  /** Resolves once the write carrying `points` was confirmed; a job has at most one span waiting (it awaits this). */
  write(key: string, points: readonly Point[]): Promise<void> {
    if (!this.active.has(key) || this.waiting.has(key)) throw new Error(`pass writes: ${key} is not a member with no span waiting`);
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(key, { points, resolve, reject });
      this.buffered += points.length;
      this.flushWhenReady();
    });
  }

  /** The job's pass ended: the others no longer wait for its span. */
  leave(key: string): void {
    this.active.delete(key);
    this.flushWhenReady();
  }

  private flushWhenReady(): void {
    if (this.waiting.size === 0) return;
    // A job in `waiting` is active (it leaves only after its write settled): equal sizes = every active job waits.
    if (this.waiting.size < this.active.size && this.buffered < this.maxPoints) return;
    const batch = [...this.waiting.entries()];
    this.waiting.clear();
    this.buffered = 0;
    const points = batch.flatMap(([, w]) => w.points);
    this.writeAll(points, batch.map(([key]) => key)).then(
      () => batch.forEach(([, w]) => w.resolve()),
      (err: unknown) => batch.forEach(([, w]) => w.reject(err)),
    );
  }
}

interface Waiting {
  points: readonly Point[];
  resolve(): void;
  reject(err: unknown): void;
}
