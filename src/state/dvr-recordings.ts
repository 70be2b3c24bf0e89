import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileDurably } from './durable-file.js';

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
const FORMAT_VERSION = 1;
/** A series (account, stream, node) not snapshotted for this long is forgotten: its stream is gone from the config. */
const FORGET_SERIES_AFTER_SEC = 24 * 3600;

const seconds = z.number().int().safe();
const fileSchema = z
  .object({
    version: z.literal(FORMAT_VERSION),
    series: z.record(z.string().min(1), z.array(z.tuple([seconds, seconds, seconds, seconds]))),
  })
  .strict();

export interface DvrRecordingStoreOptions {
  /** The state directory; without one identities live in memory only (status, tests). */
  dir?: string | undefined;
  /** A file that cannot be read or saved: identities restart from observed starts (a new row per cut range). */
  onProblem?: (message: string) => void;
}

/**
 * The recordings known per DVR series, kept in `dvr-recordings.json` of the state dir so a restart keeps each
 * recording's identity. Loaded on first use; saved (atomically, see durable-file.ts) after each update, saves
 * coalesced. Losing the file costs duplicate rows for recordings whose start the DVR window has cut, never a crash.
 */
export class DvrRecordingStore {
  private loaded: Promise<Map<string, KnownRecording[]>> | undefined;
  private map: Map<string, KnownRecording[]> | undefined;
  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;
  private saveFailing = false;

  constructor(private readonly options: DvrRecordingStoreOptions = {}) {}

  private get path(): string | undefined {
    return this.options.dir === undefined ? undefined : join(this.options.dir, DVR_RECORDINGS_FILE);
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

  /** Writes what is remembered; a failing save is reported, never thrown. */
  save(): Promise<void> {
    return this.saveMap(this.loadedMap());
  }

  private loadedMap(): Map<string, KnownRecording[]> {
    if (this.options.dir === undefined) this.map ??= new Map();
    if (!this.map) throw new Error('DvrRecordingStore used before ready()');
    return this.map;
  }

  private async load(): Promise<Map<string, KnownRecording[]>> {
    const path = this.path;
    if (path === undefined) return new Map();
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.report(`${path}: ${(err as Error).message}`);
      return new Map();
    }
    try {
      return decodeDvrRecordings(text);
    } catch (err) {
      this.report(`${path} is unreadable (${(err as Error).message})`);
      return new Map();
    }
  }

  /** One save at a time; updates made while one runs are covered by a single following save. */
  private saveMap(map: Map<string, KnownRecording[]>): Promise<void> {
    const path = this.path;
    if (path === undefined) return Promise.resolve();
    if (this.saveQueued) return this.saving;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      try {
        await mkdir(this.options.dir!, { recursive: true });
        await writeFileDurably(path, encodeDvrRecordings(map));
        this.saveFailing = false;
      } catch (err) {
        // Once per failing streak: a read-only state dir must not log at every snapshot.
        if (!this.saveFailing) this.report(`${path} not saved (${(err as Error).message})`);
        this.saveFailing = true;
      }
    });
    return this.saving;
  }

  private report(message: string): void {
    this.options.onProblem?.(message);
  }
}

export function encodeDvrRecordings(map: ReadonlyMap<string, readonly KnownRecording[]>): string {
  const series = Object.fromEntries(
    [...map].sort(([a], [b]) => a.localeCompare(b)).map(([key, list]) => [key, list.map((r) => [r.id, r.from, r.to, r.seenAt])]),
  );
  return `${JSON.stringify({ version: FORMAT_VERSION, series })}\n`;
}

/** Parses the file's text; throws an Error describing the first defect. */
export function decodeDvrRecordings(text: string): Map<string, KnownRecording[]> {
  const parsed = fileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}`);
  }
  return new Map(
    Object.entries(parsed.data.series).map(([key, rows]) => [key, rows.map(([id, from, to, seenAt]) => ({ id, from, to, seenAt }))]),
  );
}
