import { join } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { HOUR, MINUTE } from '../time.js';
import { StateFile } from './json-state.js';
import { readSetAside, SET_ASIDE_FILE, setAsideFields, setAsideFormat, type SetAsideEntry } from './set-aside-file.js';
import type { Span } from '../spans.js';

export type { SetAsideEntry } from './set-aside-file.js';

/** A job with this many spans set aside sets no more aside: it stops advancing instead (nothing is dropped). */
export const MAX_SET_ASIDE_PER_JOB = 50;
/** Slow retries: 10 min after the first failure, doubling up to 6 h. */
export const FIRST_RETRY_MS = 10 * MINUTE;
export const MAX_RETRY_MS = 6 * HOUR;
/** Reasons are one line of a log; a hostile body must not grow the file. */
const MAX_REASON_CHARS = 500;

export function retryDelayMs(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

export interface SetAsideOptions {
  clock?: Clock;
  /** The list could not be saved, once per failing streak (it still holds in memory; see the class comment). */
  onSaveError?: (err: unknown) => void;
}

/**
 * Spans that failed for a permanent reason (a body that does not fit the schema, a 4xx), per job, with the reason and
 * when to try again. `state/set-aside.json`, replaced atomically.
 *
 * This list is a retry schedule, not a record: the checkpoint store alone says what is collected, and a set-aside
 * span is simply not confirmed. A lost or unsaved list therefore costs at most one call per span after a restart
 * (the span is collected again and, if it still fails, set aside again); it can never skip data.
 */
export class SetAsideStore {
  private readonly jobs = new Map<string, SetAsideEntry[]>();
  private readonly file: StateFile<{ jobs: Record<string, SetAsideEntry[]> }> | undefined;

  private constructor(
    path: string | undefined,
    private readonly clock: Clock,
    onSaveError: (err: unknown) => void,
  ) {
    const current = () => setAsideFields(this.jobs);
    const options = { current, durable: true, onFailure: onSaveError };
    this.file = path === undefined ? undefined : new StateFile(path, setAsideFormat, options);
  }

  /**
   * Loads `dir`'s list (the caller holds the state lock). An unreadable file is reported as `problem` and the list
   * starts empty: the spans it held are collected again, so nothing is lost.
   */
  static async open(dir: string, opts: SetAsideOptions = {}): Promise<{ store: SetAsideStore; problem?: string }> {
    const { map, problem } = await readSetAside(dir, { keepCopy: true });
    const store = new SetAsideStore(
      join(dir, SET_ASIDE_FILE),
      opts.clock ?? systemClock,
      opts.onSaveError ?? (() => {}),
    );
    for (const [key, entries] of map) store.jobs.set(key, entries);
    return problem === undefined ? { store } : { store, problem };
  }

  /** A list that is never saved (tests, tools without a state dir). */
  static inMemory(clock: Clock = systemClock): SetAsideStore {
    return new SetAsideStore(undefined, clock, () => {});
  }

  keys(): string[] {
    return [...this.jobs.keys()].sort();
  }

  /** `key`'s set-aside spans, oldest first (copies). */
  list(key: string): SetAsideEntry[] {
    return (this.jobs.get(key) ?? []).map((e) => ({ ...e }));
  }

  /** Spans of `key` that must not be collected at `now` (their retry is not due yet), oldest first. */
  waiting(key: string, now: number): Span[] {
    return (this.jobs.get(key) ?? []).filter((e) => e.nextRetryAt > now).map(({ from, to }) => ({ from, to }));
  }

  /**
   * Records a permanent failure of `span`: a new entry, or one more attempt of the entries it overlaps (merged into
   * one), due again after `retryDelayMs(attempts)`. Returns undefined, recording nothing, when the job already has
   * MAX_SET_ASIDE_PER_JOB entries and `span` is a new one.
   */
  async add(key: string, span: Span, reason: string): Promise<SetAsideEntry | undefined> {
    const now = this.clock.now();
    const entries = this.jobs.get(key) ?? [];
    const overlapping = entries.filter((e) => overlaps(e, span));
    if (overlapping.length === 0 && entries.length >= MAX_SET_ASIDE_PER_JOB) return undefined;
    const attempts = Math.max(0, ...overlapping.map((e) => e.attempts)) + 1;
    const entry: SetAsideEntry = {
      from: span.from,
      to: span.to,
      reason: reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason,
      firstAt: Math.min(now, ...overlapping.map((e) => e.firstAt)),
      attempts,
      nextRetryAt: now + retryDelayMs(attempts),
    };
    this.jobs.set(
      key,
      [...entries.filter((e) => !overlaps(e, span)), entry].sort((a, b) => a.from - b.from),
    );
    await this.save();
    return { ...entry };
  }

  /** `span` was collected and confirmed: the entries it overlaps are done. Returns how many were removed. */
  async resolve(key: string, span: Span): Promise<number> {
    return this.remove(key, (e) => overlaps(e, span));
  }

  /** Forgets the entries that end before `before` (the backfill horizon: the checkpoint abandons those gaps too). */
  async dropBefore(key: string, before: number): Promise<SetAsideEntry[]> {
    const dropped = (this.jobs.get(key) ?? []).filter((e) => e.to <= before);
    await this.remove(key, (e) => e.to <= before);
    return dropped;
  }

  /** Waits for the last save. */
  async flush(): Promise<void> {
    await this.file?.flush();
  }

  private async remove(key: string, which: (e: SetAsideEntry) => boolean): Promise<number> {
    const entries = this.jobs.get(key) ?? [];
    const kept = entries.filter((e) => !which(e));
    if (kept.length === entries.length) return 0;
    if (kept.length > 0) this.jobs.set(key, kept);
    else this.jobs.delete(key);
    await this.save();
    return entries.length - kept.length;
  }

  /** Saves the list as it is when the write starts; one write at a time, so the file never goes back in time. */
  private async save(): Promise<void> {
    await this.file?.save();
  }
}

function overlaps(a: Span, b: Span): boolean {
  return a.from < b.to && b.from < a.to;
}
