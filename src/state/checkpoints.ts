import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { CollectorError, ParameterError } from '../errors.js';
import { decodeState, EMPTY_STATE, encodeState, fileNameOf, isCheckpointFile } from './checkpoint-file.js';
import type { KeyState } from './checkpoint-file.js';
import { CoalescedWrites } from './coalesced-writes.js';
import { asStateIoError, CheckpointCorruptError } from './errors.js';
import { removeStrayTemps, writeFileDurably } from './durable-file.js';
import { keepDamagedCopy } from './json-state.js';
import { StateLock } from './lock.js';
import { implausibleTime } from './plausible.js';
import { advanceWatermark, assertSpan, dropBefore, mergeSpan, subtractSpans, type Span } from '../spans.js';

export type { Span } from '../spans.js';

export interface CheckpointStoreOptions {
  /** Stamps `lastConfirmedAt` (checkpoint age); default: system time. */
  clock?: Clock;
  /** Writes one checkpoint file durably; default: writeFileDurably (tests count writes or fail one through it). */
  writeFile?: (path: string, data: string) => Promise<void>;
}

type Change = (state: KeyState) => KeyState;

/** One key's durable state, the changes waiting for the next write, and its writes. */
interface Journal {
  state: KeyState;
  queue: Change[];
  writes: CoalescedWrites;
}

/**
 * Which spans of each job are safely in the sink. Records before state: callers confirm a span only after the sink
 * confirmed its points, and a confirmation resolves only once it is on disk, so a crash at any moment re-collects at
 * most what was in flight and never skips anything.
 *
 * Reads see durable state only: a confirmation becomes visible when its write succeeded. Concurrent confirmations of
 * one key share writes (one write per batch that queued while the previous write ran), so a fast parallel backfill
 * costs a handful of fsyncs per second, not one per span.
 */
export class CheckpointStore {
  private readonly journals = new Map<string, Journal>();
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly lock: StateLock,
    private readonly clock: Clock,
    private readonly writeFile: (path: string, data: string) => Promise<void>,
  ) {}

  /**
   * Creates `dir` if needed, takes its lock, removes stray temp files and loads every checkpoint file. A full disk,
   * read-only mount or wrong permissions is a StateIoError naming the path.
   */
  static async open(dir: string, opts: CheckpointStoreOptions = {}): Promise<CheckpointStore> {
    let lock: StateLock;
    try {
      await mkdir(dir, { recursive: true });
      lock = await StateLock.acquire(dir);
    } catch (err) {
      throw asStateIoError(err, dir) ?? err;
    }
    try {
      await removeStrayTemps(dir);
      const store = new CheckpointStore(dir, lock, opts.clock ?? systemClock, opts.writeFile ?? writeFileDurably);
      await store.load();
      return store;
    } catch (err) {
      await lock.release().catch(() => {});
      throw asStateIoError(err, dir) ?? err;
    }
  }

  /** Every key that has a checkpoint. */
  keys(): string[] {
    return [...this.journals].filter(([, journal]) => journal.state !== EMPTY_STATE).map(([key]) => key);
  }

  /** End of the contiguous confirmed prefix; never moves backwards. */
  watermark(key: string): number | undefined {
    return this.stateOf(key).watermark;
  }

  /** Confirmed spans, merged and sorted (copies). */
  confirmed(key: string): Span[] {
    return this.stateOf(key).spans.map((s) => ({ ...s }));
  }

  /** Where the daemon's gap filling of `key` starts (KeyState.origin); undefined before its first pass. */
  origin(key: string): number | undefined {
    return this.stateOf(key).origin;
  }

  /** The `state.initialLookback` the origin of `key` was set with (undefined: unknown, an older file). */
  originLookback(key: string): number | undefined {
    return this.stateOf(key).originLookback;
  }

  /**
   * Records where the daemon's gap filling of `key` starts, and the `state.initialLookback` it was set with. Only the
   * daemon's own passes call it: a backfill's confirmations never move it. Resolves once durable.
   */
  async setOrigin(key: string, origin: number, lookbackMs?: number): Promise<void> {
    assertKey(key);
    if (!Number.isSafeInteger(origin))
      throw new ParameterError('origin', `must be integer epoch milliseconds (got ${origin})`);
    assertPlausible('origin', origin, this.clock.now());
    return this.enqueue(key, (state) => {
      if (state.origin === origin && state.originLookback === lookbackMs) return state;
      return { ...state, origin, originLookback: lookbackMs };
    });
  }

  /** When the last confirmation of `key` was persisted. */
  lastConfirmedAt(key: string): number | undefined {
    return this.stateOf(key).confirmedAt;
  }

  /** The parts of [from, to) that are not confirmed. */
  missing(key: string, from: number, to: number): Span[] {
    if (!(from < to)) return [];
    return subtractSpans(this.stateOf(key).spans, from, to);
  }

  /** Records `span` as collected. Resolves once it is durable; rejects (and records nothing) if the write failed. */
  async confirm(key: string, span: Span): Promise<void> {
    assertKey(key);
    assertSpan(span);
    const at = this.clock.now();
    assertPlausible('span', span.from, at);
    assertPlausible('span', span.to, at);
    return this.enqueue(key, (state) => {
      if (subtractSpans(state.spans, span.from, span.to).length === 0) return state;
      const spans = mergeSpan(state.spans, span);
      return { ...state, spans, watermark: advanceWatermark(spans, state.watermark), confirmedAt: at };
    });
  }

  /**
   * Forgets spans before `before` (the backfill horizon) so file and memory stay bounded. A watermark below the
   * horizon is raised to it: gaps older than the horizon are abandoned, and a stuck watermark would report lag forever.
   */
  async compact(key: string, before: number): Promise<void> {
    assertKey(key);
    if (!Number.isSafeInteger(before))
      throw new ParameterError('before', `must be integer epoch milliseconds (got ${before})`);
    assertPlausible('before', before, this.clock.now());
    return this.enqueue(key, (state) => {
      const aboveMark = state.watermark === undefined || before <= state.watermark;
      const hasOlder = state.spans.some((s) => s.from < before);
      if (aboveMark && !hasOlder) return state;
      const spans = dropBefore(state.spans, before);
      return { ...state, spans, watermark: aboveMark ? state.watermark : advanceWatermark(spans, before) };
    });
  }

  /** Waits until every queued change is written (or failed). */
  async flush(): Promise<void> {
    await Promise.all([...this.journals.values()].map((j) => j.writes.flush()));
  }

  /** Finishes pending writes and releases the lock; the store cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    await this.lock.release();
  }

  private stateOf(key: string): KeyState {
    return this.journals.get(key)?.state ?? EMPTY_STATE;
  }

  private async load(): Promise<void> {
    const names = (await readdir(this.dir)).filter(isCheckpointFile);
    const now = this.clock.now();
    for (const name of names) {
      const path = join(this.dir, name);
      const text = await readFile(path, 'utf8');
      try {
        const { key, state } = decodeState(path, name, text, now);
        this.journalOf(key).state = state;
      } catch (err) {
        if (!(err instanceof CheckpointCorruptError)) throw err;
        throw new CheckpointCorruptError(path, err.problem, await keepDamagedCopy(path, text));
      }
    }
  }

  private enqueue(key: string, change: Change): Promise<void> {
    if (this.closed) return Promise.reject(new CollectorError(`checkpoint store ${this.dir} is closed`));
    const journal = this.journalOf(key);
    journal.queue.push(change);
    return journal.writes.request();
  }

  private journalOf(key: string): Journal {
    let journal = this.journals.get(key);
    if (!journal) {
      const writes = new CoalescedWrites(() => this.write(key, created));
      const created: Journal = { state: EMPTY_STATE, queue: [], writes };
      this.journals.set(key, (journal = created));
    }
    return journal;
  }

  /**
   * Writes the changes queued so far as one batch: they become visible once on disk; when the write fails they are
   * all refused and the state stays as it was.
   */
  private async write(key: string, journal: Journal): Promise<void> {
    const next = journal.queue.splice(0).reduce((state, change) => change(state), journal.state);
    if (next === journal.state) return;
    const path = join(this.dir, fileNameOf(key));
    try {
      await this.writeFile(path, encodeState(key, next));
    } catch (err) {
      // A full disk or read-only mount is named as such (callers report it in /healthz).
      throw asStateIoError(err, path) ?? err;
    }
    journal.state = next;
  }
}

/** What loading would refuse is refused when written, so the store never writes a file it cannot read back. */
function assertPlausible(parameter: string, ms: number, now: number): void {
  const problem = implausibleTime(ms, now);
  if (problem) throw new ParameterError(parameter, problem);
}

function assertKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new ParameterError('key', 'must be a non-empty string');
}
