import type { Priority } from './types.js';

/** A call waiting for a slot. `seq` is fixed at the call's first attempt, so a retry keeps its place in line. */
export interface Waiter {
  seq: number;
  priority: Priority;
  enqueuedAt: number;
  deadlineAt: number;
  /** Called with the grant time once the slot is taken. */
  grant(now: number): void;
  /** Called when the deadline passed in the queue. */
  expire(): void;
  fail(err: unknown): void;
}

/** Two FIFO lines: any queued `live` waiter goes before every `backfill` waiter; within a line, lowest seq first. */
export class WaiterQueue {
  private readonly lines: Record<Priority, Waiter[]> = { live: [], backfill: [] };

  get size(): number {
    return this.lines.live.length + this.lines.backfill.length;
  }

  sizeOf(priority: Priority): number {
    return this.lines[priority].length;
  }

  add(waiter: Waiter): void {
    const line = this.lines[waiter.priority];
    let i = line.length;
    while (i > 0 && line[i - 1]!.seq > waiter.seq) i--;
    line.splice(i, 0, waiter);
  }

  shift(): Waiter | undefined {
    return this.lines.live.shift() ?? this.lines.backfill.shift();
  }

  remove(waiter: Waiter): boolean {
    const line = this.lines[waiter.priority];
    const i = line.indexOf(waiter);
    if (i >= 0) line.splice(i, 1);
    return i >= 0;
  }

  /** Removes and returns the waiters whose deadline is ≤ `now` (and, given `which`, that it picks). */
  expired(now: number, which: (waiter: Waiter) => boolean = () => true): Waiter[] {
    const out: Waiter[] = [];
    for (const line of Object.values(this.lines)) {
      for (let i = line.length - 1; i >= 0; i--) {
        const waiter = line[i]!;
        if (waiter.deadlineAt <= now && which(waiter)) out.unshift(...line.splice(i, 1));
      }
    }
    return out;
  }

  earliestDeadline(): number {
    let min = Number.POSITIVE_INFINITY;
    for (const line of Object.values(this.lines)) for (const w of line) min = Math.min(min, w.deadlineAt);
    return min;
  }

  /** Empties the queue, returning everyone that was waiting. */
  clear(): Waiter[] {
    return [...this.lines.live.splice(0), ...this.lines.backfill.splice(0)];
  }
}
