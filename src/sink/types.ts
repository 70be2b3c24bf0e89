import type { Point } from '../points.js';
import type { Refusal } from './refusal.js';

/** How long a failed write is retried (retrying.ts) unless configured otherwise (`output.retryFor`). */
export const DEFAULT_WRITE_RETRY_MS = 60_000;

/**
 * Bodies smaller than this go uncompressed: a few KB cross a LAN in well under a millisecond, less than gzip's trip
 * through the thread pool and the server's inflate (a daemon's pass writes bodies of this size).
 */
export const DEFAULT_GZIP_MIN_BYTES = 4096;

/** What one `write` achieved: lines the server confirmed, and lines permanently rejected (kept as dead letters). */
export interface WriteResult {
  written: number;
  rejected: number;
  /** Of `rejected`, the lines the database itself refused (not the encoder), by cause; absent when none. */
  refusals?: Refusal[];
}

/**
 * Where points go. `write` resolves only once the server confirmed every line (or a line was permanently rejected and
 * recorded as a dead letter), so the caller may advance its checkpoints then. A transient failure rejects with a
 * retryable `SinkError`; lines of earlier batches may have landed already, which is harmless: InfluxDB overwrites a
 * point with the same series and time, so a retry is idempotent.
 */
export interface Sink {
  readonly name: string;
  write(points: readonly Point[]): Promise<WriteResult>;
  /** A last sync where the sink writes locally (file); confirmed data is durable already, `write` syncs before it
   * resolves. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Timestamp precision of the written lines. Every collector window is minute-aligned, so seconds lose nothing; `ns`
 * is what InfluxDB assumes when a write names no precision (the file sink writes it, so the file loads as is).
 */
export type Precision = 's' | 'ms' | 'ns';

/**
 * How the target's line-protocol parser treats a backslash in names and tag values:
 * - `verbatim`: InfluxDB 1.x/2.x (Go parser, incl. the 1.8 `/api/v2/write` compat): a backslash is literal unless it
 *   precedes `,` `=` or space; `\\` is read as two backslashes, and a value *ending* in a backslash cannot be written.
 * - `escaped`: VictoriaMetrics, InfluxDB 3, Telegraf: `\\` is read as one backslash, so every backslash is doubled.
 */
export type BackslashDialect = 'verbatim' | 'escaped';

/**
 * Receives the sink's counts of lines (Telemetry satisfies it); optional. Failed writes are not among them: the
 * runtime's watched sink (telemetry/sink-watch.ts) records each write's outcome, once, for every reader.
 */
export interface SinkObserver {
  pointsWritten(measurement: string, count: number): void;
  deadLetters(count?: number): void;
  /** Lines the database refused for good (also counted by deadLetters), by cause. */
  pointsRefused?(cause: string, count: number): void;
}
