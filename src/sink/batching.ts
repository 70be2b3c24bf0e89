/**
 * The part every HTTP sink shares: encode as lines are queued, keep at most `maxInFlight` requests on the wire, confirm
 * each one, and sort out permanently rejected lines into the dead-letter file. See BatchingSink.
 */
import type { MeasurementSchema, Point } from '../points.js';
import type { DeadLetterFile } from './dead-letter.js';
import { InvalidValueError, SinkError, UnrepresentableError } from './errors.js';
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

/** One encoded line waiting for (or on) the wire, and the `write` call it belongs to. */
interface Entry {
  line: string;
  measurement: string;
  ticket: Ticket;
}

/** What one `write` call waits for: every one of its lines confirmed or dead-lettered, or the first failure. */
class Ticket {
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

/**
 * Concurrent `write` calls share one queue of encoded lines: a request carries up to `batchSize` lines from any of
 * them, at most `maxInFlight` requests are on the wire, and a writer waits while `batchSize × (maxInFlight + 1)` lines
 * are queued (backpressure). So many small writes (one per collected span) still make full requests, and memory stays
 * bounded whatever the callers pass. Each `write` resolves when all of its own lines are confirmed or dead-lettered.
 */
export class BatchingSink implements Sink {
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  private readonly maxSplitRequests: number;
  private readonly capacity: number;
  private readonly encode: PointEncoder;
  private readonly observer: SinkObserver | undefined;
  private readonly queue: Entry[] = [];
  private readonly spaceWaiters: Array<() => void> = [];
  private inFlight = 0;
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
    this.capacity = this.batchSize * (this.maxInFlight + 1);
    this.encode = createEncoder(options.precision ?? 's', { schema: options.schema, backslashes: options.backslashes });
    this.observer = options.observer;
  }

  async write(points: readonly Point[]): Promise<WriteResult> {
    if (this.closed) throw new SinkError(this.name, undefined, false, 'write after close');
    const ticket = new Ticket();
    try {
      for (const point of points) {
        if (ticket.failure) break;
        const line = this.encodeOrReject(point);
        if (typeof line !== 'string') {
          await this.reject(0, line.reason, [JSON.stringify(point)], [ticket]);
          continue;
        }
        if (this.queue.length >= this.capacity) await this.spaceFor(ticket); // no await (no turn) while there is room
        if (ticket.failure) break;
        ticket.open++;
        this.queue.push({ line, measurement: point.measurement, ticket });
        if (this.queue.length >= this.batchSize) this.pump();
      }
    } catch (error) {
      this.failTickets([ticket], error);
    }
    ticket.seal();
    this.pump(); // a partial batch goes out when its writer is done, if a request slot is free
    return ticket.done;
  }

  /** HTTP writes are confirmed before `write` resolves, so only a file has something left to make durable. */
  async flush(): Promise<void> {
    await this.transport.flush?.();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wakeWriters(); // a writer waiting for space fails instead of waiting for requests that will not be sent
    await this.transport.close();
  }

  /**
   * Waits while the queue is full. Every change that can end the wait wakes all waiters (space freed, a ticket failed,
   * close), and each re-checks: a writer whose ticket failed stops queueing, so no failure leaves a writer unsettled.
   */
  private async spaceFor(ticket: Ticket): Promise<void> {
    while (this.queue.length >= this.capacity && !ticket.failure) {
      if (this.closed) throw new SinkError(this.name, undefined, true, 'closed while the write was queued');
      await new Promise<void>((wake) => this.spaceWaiters.push(wake));
    }
  }

  private wakeWriters(): void {
    for (const wake of this.spaceWaiters.splice(0)) wake();
  }

  /** The line of a point, or why no line can express it (it then goes to the dead letters). */
  private encodeOrReject(point: Point): string | { reason: string } {
    try {
      return this.encode(point) ?? { reason: 'no field has a finite value' };
    } catch (err) {
      if (!(err instanceof UnrepresentableError || err instanceof InvalidValueError)) throw err;
      return { reason: err.message };
    }
  }

  /** Starts requests while slots are free and lines are queued. */
  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      this.wakeWriters();
      this.inFlight++;
      this.deliver(batch, { budget: this.maxSplitRequests })
        .catch((error: unknown) => this.failTickets(ticketsOf(batch), error))
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }

  /** Sends the entries; on a permanent rejection, bisects to dead-letter only the lines the server refuses. */
  private async deliver(entries: Entry[], split: { budget: number }): Promise<void> {
    const rejection = await this.transport.send(entries.map((e) => e.line).join('\n'));
    if (!rejection) {
      this.countWritten(entries);
      for (const e of entries) {
        e.ticket.result.written++;
        e.ticket.lineDone();
      }
      return;
    }
    // Re-sending lines that did land (a partial write) is harmless: same series and time overwrite.
    const allDropped = droppedCount(rejection.reason) === entries.length;
    if (entries.length === 1 || allDropped || split.budget < 2) {
      await this.reject(rejection.status, rejection.reason, entries.map((e) => e.line), entries.map((e) => e.ticket));
      for (const e of entries) e.ticket.lineDone();
      return;
    }
    split.budget -= 2;
    const mid = Math.floor(entries.length / 2);
    await this.deliver(entries.slice(0, mid), split);
    await this.deliver(entries.slice(mid), split);
  }

  /** Records lines in the dead-letter file and counts them against their writes (one ticket per line). */
  private async reject(status: number, reason: string, lines: string[], tickets: Ticket[]): Promise<void> {
    try {
      await this.deadLetters.append({ sink: this.name, status, reason, lines });
    } catch (err) {
      // Unrecorded, the lines would be lost silently: fail the write so the caller retries it.
      throw new SinkError(this.name, undefined, true, `cannot record dead letters in ${this.deadLetters.path}: ${String(err)}`, {
        cause: err,
      });
    }
    for (const t of tickets) t.result.rejected++;
    this.observer?.deadLetters(lines.length);
  }

  /** A failed request fails every write with a line in it; their lines still queued are not sent. */
  private failTickets(tickets: Iterable<Ticket>, error: unknown): void {
    const failed = new Set<Ticket>();
    for (const t of tickets) if (t.fail(error)) failed.add(t);
    if (failed.size === 0) return;
    for (let i = this.queue.length - 1; i >= 0; i--) if (failed.has(this.queue[i]!.ticket)) this.queue.splice(i, 1);
    // Freed space lets other writers go on, and a writer of a failed ticket must learn it instead of waiting on.
    this.wakeWriters();
    failed.forEach(() => this.observer?.writeFailed());
  }

  private countWritten(entries: Entry[]): void {
    if (!this.observer) return;
    const counts = new Map<string, number>();
    for (const e of entries) counts.set(e.measurement, (counts.get(e.measurement) ?? 0) + 1);
    for (const [measurement, count] of counts) this.observer.pointsWritten(measurement, count);
  }
}

function ticketsOf(entries: Entry[]): Set<Ticket> {
  return new Set(entries.map((e) => e.ticket));
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
