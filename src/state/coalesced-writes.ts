interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface CoalescedWritesOptions {
  /** The first failure of a streak: a read-only volume must not be reported at every save. */
  onFailure?: (err: unknown) => void;
  /** A write succeeded after failures. */
  onRecovery?: () => void;
}

/**
 * Runs `writeLatest` (which writes the state as it is when called) so that at most one write is in flight: every
 * request made while one runs is served by a single next write, which holds the latest state. Requests made in the
 * same tick share the first write.
 */
export class CoalescedWrites {
  private waiting: Waiter[] = [];
  private running: Promise<void> | undefined;
  private failed = false;

  constructor(
    private readonly writeLatest: () => Promise<void>,
    private readonly options: CoalescedWritesOptions = {},
  ) {}

  /** Whether the last write failed (its state is not on disk). */
  get failing(): boolean {
    return this.failed;
  }

  /** Whether a write is under way. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Resolves once a write that started after this call succeeded; rejects with that write's error. */
  request(): Promise<void> {
    const done = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.running ??= this.loop();
    return done;
  }

  /** Waits until no write is under way; never rejects. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    await Promise.resolve();
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      try {
        await this.writeLatest();
        if (this.failed) this.report(this.options.onRecovery);
        this.failed = false;
        for (const waiter of batch) waiter.resolve();
      } catch (err) {
        if (!this.failed) this.report(() => this.options.onFailure?.(err));
        this.failed = true;
        for (const waiter of batch) waiter.reject(err);
      }
    }
    this.running = undefined;
  }

  private report(callback: (() => void) | undefined): void {
    try {
      callback?.();
    } catch {
      // Reporting must never stop the writes.
    }
  }
}
