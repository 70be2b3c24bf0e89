/**
 * The part every HTTP sink shares: encode lazily batch by batch, keep at most `maxInFlight` batches on the wire, confirm
 * each one, and sort out permanently rejected lines into the dead-letter file. Memory stays bounded by
 * batchSize × maxInFlight lines whatever the caller passes, and `write` resolves only when all of it is settled.
 */
import type { MeasurementSchema, Point } from '../points.js';
import type { DeadLetterFile } from './dead-letter.js';
import { SinkError, UnrepresentableError } from './errors.js';
import { createEncoder, type PointEncoder } from './line-protocol.js';
import type { BackslashDialect, Precision, Sink, SinkObserver, WriteResult } from './types.js';

/** A permanent rejection (400/422/413) of a request's content; transient failures are thrown as SinkError instead. */
export interface Rejection {
  status: number;
  reason: string;
}

/** Sends one request body of lines; resolves undefined on 2xx, a Rejection when the content is refused for good. */
export interface LineTransport {
  send(body: string): Promise<Rejection | undefined>;
  /** Makes sent data durable, where the transport buffers (files). */
  flush?(): Promise<void>;
  close(): Promise<void>;
}

export interface BatchingOptions {
  /** Lines per request (default 5,000). */
  batchSize?: number;
  /** Requests on the wire at once (default 2: one encodes while the other is in flight). */
  maxInFlight?: number;
  precision?: Precision;
  backslashes?: BackslashDialect;
  schema?: ReadonlyMap<string, MeasurementSchema>;
  /**
   * Extra requests one rejected batch may spend narrowing down its bad lines by bisection (default 64). When spent,
   * the rest of the batch is dead-lettered whole, so a batch full of bad lines can't cause thousands of requests.
   */
  maxSplitRequests?: number;
  observer?: SinkObserver;
}

export const DEFAULT_BATCH_SIZE = 5_000;
export const DEFAULT_MAX_IN_FLIGHT = 2;

/** One encoded batch: lines, and the measurement of each (for per-measurement counts). */
interface Batch {
  lines: string[];
  measurements: string[];
  splitBudget: number;
}

export class BatchingSink implements Sink {
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  private readonly maxSplitRequests: number;
  private readonly encode: PointEncoder;
  private readonly observer: SinkObserver | undefined;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly transport: LineTransport,
    private readonly deadLetters: DeadLetterFile,
    options: BatchingOptions = {},
  ) {
    this.batchSize = positive('batchSize', options.batchSize ?? DEFAULT_BATCH_SIZE);
    this.maxInFlight = positive('maxInFlight', options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    this.maxSplitRequests = options.maxSplitRequests ?? 64;
    this.encode = createEncoder(options.precision ?? 's', { schema: options.schema, backslashes: options.backslashes });
    this.observer = options.observer;
  }

  async write(points: readonly Point[]): Promise<WriteResult> {
    if (this.closed) throw new SinkError(this.name, undefined, false, 'write after close');
    const result: WriteResult = { written: 0, rejected: 0 };
    let next = 0;
    let failure: { error: unknown } | undefined;
    // Workers pull the next slice when their batch is confirmed: that is the backpressure.
    const worker = async (): Promise<void> => {
      while (!failure && next < points.length) {
        const from = next;
        next = Math.min(points.length, from + this.batchSize);
        try {
          const batch = await this.encodeBatch(points, from, next, result);
          if (batch.lines.length > 0) await this.deliver(batch, 0, batch.lines.length, result);
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    const workers = Math.min(this.maxInFlight, Math.ceil(points.length / this.batchSize));
    await Promise.all(Array.from({ length: workers }, worker));
    if (failure) {
      this.observer?.writeFailed();
      throw failure.error;
    }
    return result;
  }

  /** HTTP writes are confirmed before `write` resolves, so only a file has something left to make durable. */
  async flush(): Promise<void> {
    await this.transport.flush?.();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.transport.close();
  }

  /** Encodes points[from, to); points no line can express go straight to the dead letters. */
  private async encodeBatch(points: readonly Point[], from: number, to: number, result: WriteResult): Promise<Batch> {
    const batch: Batch = { lines: [], measurements: [], splitBudget: this.maxSplitRequests };
    const unwritable: { point: Point; reason: string }[] = [];
    for (let i = from; i < to; i++) {
      const point = points[i]!;
      try {
        const line = this.encode(point);
        if (line === undefined) unwritable.push({ point, reason: 'no field has a finite value' });
        else {
          batch.lines.push(line);
          batch.measurements.push(point.measurement);
        }
      } catch (err) {
        if (!(err instanceof UnrepresentableError)) throw err;
        unwritable.push({ point, reason: err.message });
      }
    }
    for (const { point, reason } of unwritable) {
      await this.reject(0, reason, [JSON.stringify(point)], result);
    }
    return batch;
  }

  /** Sends lines[from, to); on a permanent rejection, bisects to dead-letter only the lines the server refuses. */
  private async deliver(batch: Batch, from: number, to: number, result: WriteResult): Promise<void> {
    const rejection = await this.transport.send(joinLines(batch.lines, from, to));
    if (!rejection) {
      result.written += to - from;
      this.countWritten(batch.measurements, from, to);
      return;
    }
    // Re-sending lines that did land (a partial write) is harmless: same series and time overwrite.
    const size = to - from;
    const allDropped = droppedCount(rejection.reason) === size;
    if (size === 1 || allDropped || batch.splitBudget < 2) {
      await this.reject(rejection.status, rejection.reason, batch.lines.slice(from, to), result);
      return;
    }
    batch.splitBudget -= 2;
    const mid = from + Math.floor(size / 2);
    await this.deliver(batch, from, mid, result);
    await this.deliver(batch, mid, to, result);
  }

  private async reject(status: number, reason: string, lines: string[], result: WriteResult): Promise<void> {
    try {
      await this.deadLetters.append({ sink: this.name, status, reason, lines });
    } catch (err) {
      // Unrecorded, the lines would be lost silently: fail the write so the caller retries it.
      throw new SinkError(this.name, undefined, true, `cannot record dead letters in ${this.deadLetters.path}: ${String(err)}`, {
        cause: err,
      });
    }
    result.rejected += lines.length;
    this.observer?.deadLetters(lines.length);
  }

  private countWritten(measurements: string[], from: number, to: number): void {
    if (!this.observer) return;
    const counts = new Map<string, number>();
    for (let i = from; i < to; i++) counts.set(measurements[i]!, (counts.get(measurements[i]!) ?? 0) + 1);
    for (const [measurement, count] of counts) this.observer.pointsWritten(measurement, count);
  }
}

function joinLines(lines: string[], from: number, to: number): string {
  return from === 0 && to === lines.length ? lines.join('\n') : lines.slice(from, to).join('\n');
}

/** InfluxDB reports how many lines of a partial write it dropped: `… dropped=3`. */
export function droppedCount(reason: string): number | undefined {
  const match = /dropped=(\d+)/.exec(reason);
  return match ? Number(match[1]) : undefined;
}

function positive(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${option} must be a positive integer, got ${value}`);
  return value;
}
