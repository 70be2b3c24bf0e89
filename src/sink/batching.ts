/**
 * The part every HTTP sink shares: encode as lines are queued, keep at most `maxInFlight` requests on the wire, confirm
 * each one, and sort out permanently rejected lines into the dead-letter file. See BatchingSink.
 */
import type { MeasurementSchema, Point } from '../points.js';
import { GrowingBytes } from './byte-writer.js';
import type { DeadLetterFile } from './dead-letter.js';
import { InvalidValueError, SinkError, UnrepresentableError } from './errors.js';
import { BufferPool, LineBatch } from './line-batch.js';
import { type LineEncoder, NO_LINE } from './line-encoder.js';
import { lineEncoder } from './line-protocol.js';
import { addRefusal, refusalCause } from './refusal.js';
import { Ticket, ticketsOf } from './ticket.js';
import type { BackslashDialect, Precision, Sink, SinkObserver, WriteResult } from './types.js';

/** A permanent rejection (400/422/413) of a request's content; transient failures are thrown as SinkError instead. */
export interface Rejection {
  status: number;
  reason: string;
}

/**
 * Sends one request body of lines (UTF-8, joined by `\n`, no trailing one); resolves undefined on 2xx, a Rejection
 * when the content is refused for good. The body is only valid until the promise settles.
 */
export interface LineTransport {
  send(body: Buffer | string): Promise<Rejection | undefined>;
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
  /** Each measurement's field types, from whoever builds the sink. */
  schema: ReadonlyMap<string, MeasurementSchema>;
  /**
   * Extra requests one rejected batch may spend narrowing down its bad lines by bisection (default 64). When spent,
   * the rest of the batch is dead-lettered whole, so a batch full of bad lines can't cause thousands of requests.
   */
  maxSplitRequests?: number;
  observer?: SinkObserver;
}

export const DEFAULT_BATCH_SIZE = 5_000;
export const DEFAULT_MAX_IN_FLIGHT = 2;

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
  private readonly encoder: LineEncoder;
  /** Where a point is encoded on trial while the queue is full (see write). */
  private readonly trial = new GrowingBytes();
  private readonly observer: SinkObserver | undefined;
  /** The batch being filled, full batches waiting for a request slot, and the lines in both. */
  private filling: LineBatch<Ticket>;
  /** One buffer per batch that can exist at once: in flight, ready, filling. */
  private readonly buffers: BufferPool;
  private readonly ready: Array<LineBatch<Ticket>> = [];
  private queued = 0;
  private readonly spaceWaiters: Array<() => void> = [];
  private inFlight = 0;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly transport: LineTransport,
    private readonly deadLetters: DeadLetterFile,
    options: BatchingOptions,
  ) {
    this.batchSize = positive('batchSize', options.batchSize ?? DEFAULT_BATCH_SIZE);
    this.maxInFlight = positive('maxInFlight', options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    this.maxSplitRequests = options.maxSplitRequests ?? 64;
    this.capacity = this.batchSize * (this.maxInFlight + 1);
    this.encoder = lineEncoder(options.precision ?? 's', { schema: options.schema, backslashes: options.backslashes });
    this.observer = options.observer;
    this.buffers = new BufferPool(this.maxInFlight + 2);
    this.filling = new LineBatch(this.buffers);
  }

  async write(points: readonly Point[]): Promise<WriteResult> {
    if (this.closed) throw new SinkError(this.name, undefined, false, 'write after close');
    const ticket = new Ticket();
    try {
      for (const point of points) {
        if (ticket.failure) break;
        let refused: string | undefined;
        try {
          // No await (no turn) while there is room. When full, a point without a line is refused at once, not after
          // the wait: the trial encoding tells, and the point is encoded again into whichever batch is filling then.
          if (this.queued >= this.capacity && this.encoder.encodeInto(point, this.trial, 0) !== NO_LINE) {
            await this.spaceFor(ticket);
            if (ticket.failure) break;
          }
          if (!this.filling.appendPoint(point, this.encoder, ticket)) refused = 'no field has a finite value';
        } catch (err) {
          if (!(err instanceof UnrepresentableError || err instanceof InvalidValueError)) throw err;
          refused = err.message;
        }
        if (refused !== undefined) {
          await this.reject(0, refused, [JSON.stringify(point)], [ticket]);
          continue;
        }
        ticket.open++;
        this.queued++;
        if (this.filling.count >= this.batchSize) {
          this.ready.push(this.takeFilling());
          this.pump();
        }
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
    while (this.queued >= this.capacity && !ticket.failure) {
      if (this.closed) throw new SinkError(this.name, undefined, true, 'closed while the write was queued');
      await new Promise<void>((wake) => this.spaceWaiters.push(wake));
    }
  }

  private wakeWriters(): void {
    for (const wake of this.spaceWaiters.splice(0)) wake();
  }

  /** The batch being filled, handed over (to the ready list or the wire); a new one takes its place. */
  private takeFilling(): LineBatch<Ticket> {
    const batch = this.filling;
    this.filling = new LineBatch(this.buffers);
    return batch;
  }

  /** Starts requests while slots are free and lines are queued (a partial batch too: no line waits for company). */
  private pump(): void {
    while (this.inFlight < this.maxInFlight) {
      const batch = this.ready.shift() ?? (this.filling.count > 0 ? this.takeFilling() : undefined);
      if (!batch) {
        if (this.inFlight === 0 && this.filling.count === 0) this.letGoOfBuffers();
        return;
      }
      this.queued -= batch.count;
      this.wakeWriters();
      this.inFlight++;
      this.deliver(batch, 0, batch.count, { budget: this.maxSplitRequests })
        .catch((error: unknown) => this.failTickets(ticketsOf(batch), error))
        .finally(() => {
          batch.release(); // the request is settled: its body is no longer read
          this.inFlight--;
          this.pump();
        });
    }
  }

  /** Idle (nothing queued, nothing on the wire): the buffers kept for the next batches go back to the system. */
  private letGoOfBuffers(): void {
    this.filling.release();
    this.buffers.clear();
  }

  /** Bytes kept for reuse while idle (none: see letGoOfBuffers) or between batches. */
  get pooledBytes(): number {
    return this.buffers.pooledBytes;
  }

  /** Sends lines [from, to); on a permanent rejection, bisects to dead-letter only the lines the server refuses. */
  private async deliver(batch: LineBatch<Ticket>, from: number, to: number, split: { budget: number }): Promise<void> {
    const rejection = await this.transport.send(batch.body(from, to));
    if (!rejection) {
      this.countWritten(batch, from, to);
      for (let i = from; i < to; i++) {
        const ticket = batch.owner(i);
        ticket.result.written++;
        ticket.lineDone();
      }
      return;
    }
    // Re-sending lines that did land (a partial write) is harmless: same series and time overwrite.
    const count = to - from;
    const allDropped = droppedCount(rejection.reason) === count;
    if (count === 1 || allDropped || split.budget < 2) {
      const tickets = Array.from({ length: count }, (_, k) => batch.owner(from + k));
      const measurements = Array.from({ length: count }, (_, k) => batch.measurement(from + k));
      await this.reject(rejection.status, rejection.reason, batch.lines(from, to), tickets, measurements);
      for (const t of tickets) t.lineDone();
      return;
    }
    split.budget -= 2;
    const mid = from + Math.floor(count / 2);
    await this.deliver(batch, from, mid, split);
    await this.deliver(batch, mid, to, split);
  }

  /**
   * Records lines in the dead-letter file and counts them against their writes (one ticket per line); lines the
   * database refused (`measurements` given) are reported by cause too.
   */
  private async reject(
    status: number,
    reason: string,
    lines: string[],
    tickets: Ticket[],
    measurements?: string[],
  ): Promise<void> {
    try {
      await this.deadLetters.append({ sink: this.name, status, reason, lines });
    } catch (err) {
      // Unrecorded, the lines would be lost silently: fail the write so the caller retries it.
      throw new SinkError(
        this.name,
        undefined,
        true,
        `cannot record dead letters in ${this.deadLetters.path}: ${String(err)}`,
        {
          cause: err,
        },
      );
    }
    for (const t of tickets) t.result.rejected++;
    this.observer?.deadLetters(lines.length);
    if (!measurements) return;
    tickets.forEach((t, i) => addRefusal((t.result.refusals ??= []), reason, 1, [measurements[i]!]));
    this.observer?.pointsRefused?.(refusalCause(reason), lines.length);
  }

  /** A failed request fails every write with a line in it; their lines still queued are not sent. */
  private failTickets(tickets: Iterable<Ticket>, error: unknown): void {
    const failed = new Set<Ticket>();
    for (const t of tickets) if (t.fail(error)) failed.add(t);
    if (failed.size === 0) return;
    for (const batch of [...this.ready, this.filling]) this.queued -= batch.retain((t) => !failed.has(t));
    for (let i = this.ready.length - 1; i >= 0; i--) if (this.ready[i]!.count === 0) this.ready.splice(i, 1);
    // Freed space lets other writers go on, and a writer of a failed ticket must learn it instead of waiting on.
    this.wakeWriters();
  }

  private countWritten(batch: LineBatch<Ticket>, from: number, to: number): void {
    if (!this.observer) return;
    const counts = new Map<string, number>();
    for (let i = from; i < to; i++) counts.set(batch.measurement(i), (counts.get(batch.measurement(i)) ?? 0) + 1);
    for (const [measurement, count] of counts) this.observer.pointsWritten(measurement, count);
  }
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
