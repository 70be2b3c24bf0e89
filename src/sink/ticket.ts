/** A `write` call's share of the sink's queue: its lines in any batch, and what the call resolves to. */
import type { WriteResult } from './types.js';

/** What one `write` call waits for: every one of its lines confirmed or dead-lettered, or the first failure. */
export class Ticket {
  readonly result: WriteResult = { written: 0, rejected: 0 };
  open = 0;
  sealed = false;
  failure: { error: unknown } | undefined;
  readonly done: Promise<WriteResult>;
  private settle!: { resolve: (r: WriteResult) => void; reject: (e: unknown) => void };

  constructor() {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    this.done.catch(() => {}); // observed by write(); avoids an unhandled rejection before it awaits
  }

  lineDone(): void {
    this.open--;
    this.maybeResolve();
  }

  seal(): void {
    this.sealed = true;
    this.maybeResolve();
  }

  fail(error: unknown): boolean {
    if (this.failure) return false;
    this.failure = { error };
    this.settle.reject(error);
    return true;
  }

  private maybeResolve(): void {
    if (this.sealed && this.open === 0 && !this.failure) this.settle.resolve(this.result);
  }
}

/** The writes with a line in the batch. */
export function ticketsOf(batch: { count: number; owner(i: number): Ticket }): Set<Ticket> {
  const tickets = new Set<Ticket>();
  for (let i = 0; i < batch.count; i++) tickets.add(batch.owner(i));
  return tickets;
}
