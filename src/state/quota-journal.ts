import { join } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import type { ApiName } from '../spec/apis.js';
import type { CallHistory, CallJournal } from '../limit/types.js';
import { replaceFileSync } from './durable-file.js';
import { encodeStateText, StateFile } from './json-state.js';
import { journalFormat, KEEP, loadJournal, QUOTA_JOURNAL_FILE } from './quota-journal-file.js';
import type { Entries, Entry, LoadedJournal } from './quota-journal-file.js';

/** What the journal has to report; runtime.ts turns these into log lines and the /healthz condition. */
export type JournalEvent =
  /** The file could not be used; a copy was kept (unless even that failed) and every window is counted full. */
  | { type: 'damaged'; path: string; problem: string; copy: string | undefined }
  /** Completion times lay in the future (wall clock set back?) and were clamped to now. */
  | { type: 'future'; path: string; count: number; aheadMs: number }
  /** A write failed (full disk, read-only mount); reported once until a write succeeds again. */
  | { type: 'write-failed'; path: string; error: unknown }
  /** A write succeeded after failures. */
  | { type: 'write-recovered'; path: string };

export interface QuotaJournalOptions {
  /** Wall clock of the persisted times. Default: system time. */
  clock?: Clock;
  /** Replaces the file with `data` (tests inject failures). Default: write a temp file, rename it over. */
  write?: (path: string, data: string) => Promise<void>;
  /** The same, synchronously, for the record of a call about to be sent; default with the default `write` only. */
  writeNow?: (path: string, data: string) => void;
  onEvent?: (event: JournalEvent) => void;
}

/**
 * Remembers the API calls of this process across restarts, so that a collector restarted right after a crash (or a
 * kill -9) does not spend a quota the previous process already spent in the same window.
 *
 * Best effort by design: a call about to be sent is recorded synchronously (see `sent`); every other change is written
 * asynchronously and coalesced (json-state.ts: at most one write in flight, the latest state wins), and a failing
 * write is reported (onEvent) and retried with the next change, never thrown at the limiter. No fsync: a killed process
 * loses nothing the kernel has, and a machine crash takes longer to recover from than any quota period.
 *
 * Times are persisted as wall-clock times (another process has another monotonic base) and converted to the
 * limiter's clock when read back.
 */
export class QuotaJournal implements CallJournal {
  readonly path: string;
  private readonly clock: Clock;
  private readonly writeNow: ((path: string, data: string) => void) | undefined;
  private readonly onEvent: ((event: JournalEvent) => void) | undefined;
  private readonly loaded: LoadedJournal;
  private readonly entries: Entries;
  private readonly file: StateFile<Entries>;

  /** Reads the previous process's journal; throws StateIoError when it exists but cannot be read. */
  constructor(dir: string, options: QuotaJournalOptions = {}) {
    this.path = join(dir, QUOTA_JOURNAL_FILE);
    this.clock = options.clock ?? systemClock;
    this.writeNow = options.writeNow ?? (options.write ? undefined : replaceFileSync);
    this.onEvent = options.onEvent;
    this.loaded = loadJournal(this.path, this.clock.now());
    // A damaged file is replaced by this process's calls alone (its copy is kept).
    this.entries = this.loaded.kind === 'ok' ? this.loaded.entries : {};
    this.file = new StateFile(this.path, journalFormat, {
      current: () => this.entries,
      durable: false,
      ...(options.write ? { write: options.write } : {}),
      // A failed write leaves the file behind: the next change (or flush) tries again, so it catches up.
      onFailure: (error) => this.emit({ type: 'write-failed', path: this.path, error }),
      onRecovery: () => this.emit({ type: 'write-recovered', path: this.path }),
    });
    if (this.loaded.kind === 'damaged') {
      this.emit({ type: 'damaged', path: this.path, problem: this.loaded.problem, copy: this.loaded.copy });
    } else if (this.loaded.future.count > 0) {
      this.emit({ type: 'future', path: this.path, ...this.loaded.future });
    }
  }

  history(api: ApiName, clock: Clock): CallHistory {
    if (this.loaded.kind === 'damaged') return { completedAt: [], unsettled: Number.POSITIVE_INFINITY };
    // A completion `age` ms ago in wall time happened `age` ms ago on the limiter's clock too.
    const wallNow = this.clock.now();
    const now = clock.now();
    const completedAt = (this.loaded.entries[api]?.done ?? []).map((at) => now - Math.max(0, wallNow - at));
    return { completedAt, unsettled: 0 };
  }

  /**
   * Recorded before the request leaves, synchronously: a process killed right after sending must not leave a call the
   * next process cannot see (it would spend the same slot again). A failed write falls back to the coalesced one.
   */
  sent(api: ApiName): void {
    this.entry(api).inFlight++;
    if (this.writeNow) {
      try {
        this.writeNow(this.path, encodeStateText(journalFormat, this.entries));
        // A coalesced write under way holds an older state: it must not be the last one written.
        if (this.file.busy) this.save();
        return;
      } catch {
        // reported by the asynchronous write below, which retries with the next change
      }
    }
    this.save();
  }

  completed(api: ApiName): void {
    const entry = this.entry(api);
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    entry.done.push(this.clock.now());
    if (entry.done.length > KEEP) entry.done.splice(0, entry.done.length - KEEP);
    this.save();
  }

  /** Waits for the write in flight and, if the last write failed, tries once more. Never rejects. */
  async flush(): Promise<void> {
    await this.file.flush();
    if (this.file.failing) await this.file.save();
  }

  private entry(api: ApiName): Entry {
    return (this.entries[api] ??= { done: [], inFlight: 0 });
  }

  private save(): void {
    void this.file.save();
  }

  private emit(event: JournalEvent): void {
    try {
      this.onEvent?.(event);
    } catch {
      // Reporting must never break the journal.
    }
  }
}
