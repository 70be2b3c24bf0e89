import { join } from 'node:path';
import { z } from 'zod';
import { loadStateFile, StateFile, type StateFormat } from './json-state.js';

/**
 * A DVR recording the collector has seen, in unix seconds: `id` is the start it had when first seen (the stable time
 * of its `cdn_dvr_range` point), `from`/`to` what the last snapshot that listed it said, `seenAt` that snapshot.
 */
export interface KnownRecording {
  id: number;
  from: number;
  to: number;
  seenAt: number;
}

export const DVR_RECORDINGS_FILE = 'dvr-recordings.json';
/** A series (account, stream, node) not snapshotted for this long is forgotten: its stream is gone from the config. */
const FORGET_SERIES_AFTER_SEC = 24 * 3600;

const seconds = z.number().int().safe();
type Row = [id: number, from: number, to: number, seenAt: number];
/** Per series, its recordings as rows `[id, from, to, seenAt]`. */
const recordingsFormat: StateFormat<{ series: Record<string, Row[]> }> = {
  version: 1,
  schema: z
    .object({ series: z.record(z.string().min(1), z.array(z.tuple([seconds, seconds, seconds, seconds]))) })
    .strict(),
  empty: () => ({ series: {} }),
};

export interface DvrRecordingStoreOptions {
  /** The state directory; without one identities live in memory only (status, tests). */
  dir?: string | undefined;
  /** A file that cannot be read or saved: identities restart from observed starts (a new row per cut range). */
  onProblem?: (message: string) => void;
}

/**
 * The recordings known per DVR series, kept in `dvr-recordings.json` of the state dir so a restart keeps each
 * recording's identity. Loaded on first use; saved (json-state.ts: atomically, coalesced) after each update. Losing
 * the file costs duplicate rows for recordings whose start the DVR window has cut, never a crash.
 */
export class DvrRecordingStore {
  private loaded: Promise<Map<string, KnownRecording[]>> | undefined;
  private map: Map<string, KnownRecording[]> | undefined;
  private readonly file: StateFile<{ series: Record<string, Row[]> }> | undefined;

  constructor(private readonly options: DvrRecordingStoreOptions = {}) {
    if (options.dir === undefined) return;
    this.file = new StateFile(join(options.dir, DVR_RECORDINGS_FILE), recordingsFormat, {
      current: () => recordingFields(this.loadedMap()),
      durable: true,
      createDir: true,
      // Once per failing streak: a read-only state dir must not log at every snapshot.
      onFailure: (err) => this.report(`${this.file?.path} not saved (${(err as Error).message})`),
    });
  }

  /** Loads the file once; `known` and `remember` need it loaded. */
  async ready(): Promise<void> {
    this.loaded ??= this.load();
    this.map = await this.loaded;
  }

  /** The recordings of `series` as last remembered. */
  known(series: string): readonly KnownRecording[] {
    return this.loadedMap().get(series) ?? [];
  }

  /** Replaces the recordings of `series`, forgetting series not snapshotted for a day (`save` makes it durable). */
  remember(series: string, recordings: readonly KnownRecording[], nowSec: number): void {
    const map = this.loadedMap();
    if (recordings.length > 0) map.set(series, [...recordings]);
    else map.delete(series);
    for (const [key, list] of map) {
      const lastSeen = Math.max(...list.map((r) => r.seenAt));
      if (nowSec - lastSeen > FORGET_SERIES_AFTER_SEC) map.delete(key);
    }
  }

  /** Writes what is remembered (saves coalesced); a failing save is reported, never thrown. */
  async save(): Promise<void> {
    await this.file?.save();
  }

  private loadedMap(): Map<string, KnownRecording[]> {
    if (this.options.dir === undefined) this.map ??= new Map();
    if (!this.map) throw new Error('DvrRecordingStore used before ready()');
    return this.map;
  }

  private async load(): Promise<Map<string, KnownRecording[]>> {
    if (this.file === undefined) return new Map();
    const loaded = await loadStateFile(this.file.path, recordingsFormat, { keepCopy: true });
    if (loaded.problem !== undefined) this.report(loaded.problem);
    const recordings = (rows: Row[]) => rows.map(([id, from, to, seenAt]) => ({ id, from, to, seenAt }));
    return new Map(Object.entries(loaded.value.series).map(([key, rows]) => [key, recordings(rows)]));
  }

  private report(message: string): void {
    this.options.onProblem?.(message);
  }
}

function recordingFields(map: ReadonlyMap<string, readonly KnownRecording[]>): { series: Record<string, Row[]> } {
  const sorted = [...map].sort(([a], [b]) => a.localeCompare(b));
  const rows = (list: readonly KnownRecording[]) => list.map((r): Row => [r.id, r.from, r.to, r.seenAt]);
  return { series: Object.fromEntries(sorted.map(([key, list]) => [key, rows(list)])) };
}
