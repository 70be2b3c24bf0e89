/**
 * One request's worth of lines, encoded into a single growing byte buffer as they are queued: the encoder writes each
 * point's line straight into it (no line string at all), instead of thousands of strings (ropes built piece by piece)
 * kept alive until the batch is joined. Memory is bounded by the sink's line capacity (batch size × (requests in
 * flight + 1)) times the bytes of a line.
 */
import type { Point } from '../points.js';
import type { ByteTarget } from './byte-writer.js';
import { type LineEncoder, NO_LINE } from './line-encoder.js';

const NEWLINE = 0x0a;
/** UTF-16 code units to UTF-8 bytes: at most 3 bytes per unit (a surrogate pair: 4 bytes for 2 units). */
const MAX_BYTES_PER_UNIT = 3;
const MIN_CAPACITY = 16 * 1024;
/**
 * A buffer grown past this (a batch of long lines) is not pooled: the daemon's passes write small batches, and one
 * catch-up must not leave megabytes held for good.
 */
export const MAX_POOLED_BYTES = 4 * 1024 * 1024;
const NO_BYTES = Buffer.alloc(0);

/**
 * Buffers of finished batches, reused by the next ones: a few long-lived buffers instead of megabytes malloc'd and
 * freed per request, which the allocator does not hand back to the system (RSS stays at its high-water mark). The
 * sink lets go of them all when it falls idle, and a buffer above `maxBytes` is never kept.
 */
export class BufferPool {
  private readonly free: Buffer[] = [];
  constructor(
    private readonly limit: number,
    private readonly maxBytes = MAX_POOLED_BYTES,
  ) {}

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(MIN_CAPACITY);
  }

  give(buffer: Buffer): void {
    if (this.free.length < this.limit && buffer.length <= this.maxBytes && buffer.length > 0) this.free.push(buffer);
  }

  /** Drops every pooled buffer (the garbage collector frees them). */
  clear(): void {
    this.free.length = 0;
  }

  /** Bytes held for reuse. */
  get pooledBytes(): number {
    let total = 0;
    for (const buffer of this.free) total += buffer.length;
    return total;
  }
}

/** Lines in bytes (each followed by `\n`), with, per line, the owner (a write's ticket) and its measurement. */
export class LineBatch<Owner> implements ByteTarget {
  private used = 0;
  /** Byte offset just past each line's `\n`. */
  /** Per-line arrays, kept at their length when the batch is released and reused (only the first `lines` count). */
  private readonly ends: number[] = [];
  private readonly owners: Array<Owner | undefined> = [];
  private readonly measurements: string[] = [];
  private lineCount = 0;

  /**
   * Taken at the first line (an empty batch holds no buffer); starts small (a daemon's pass writes few lines) and
   * doubles: a copy per doubling is cheap next to encoding.
   */
  private buffer: Buffer = NO_BYTES;

  constructor(private readonly pool?: BufferPool) {}

  get bytes(): Buffer {
    return this.buffer;
  }

  get count(): number {
    return this.lineCount;
  }

  get byteLength(): number {
    return this.used;
  }

  /** Appends a line given as text. */
  append(line: string, measurement: string, owner: Owner): void {
    const bytes = this.reserve(this.used, line.length * MAX_BYTES_PER_UNIT + 1);
    this.commit(this.used + bytes.write(line, this.used, 'utf8'), measurement, owner);
  }

  /**
   * Encodes the point as the next line; false when it has none (no field with a finite value). Throws what the
   * encoder throws, and then nothing is appended.
   */
  appendPoint(point: Point, encoder: LineEncoder, owner: Owner): boolean {
    const end = encoder.encodeInto(point, this, this.used);
    if (end === NO_LINE) return false;
    this.commit(end, point.measurement, owner);
    return true;
  }

  reserve(at: number, size: number): Buffer {
    if (at + size > this.buffer.length) this.grow(at, at + size);
    return this.buffer;
  }

  /** Lines [from, to) as a request body: joined by `\n`, without a trailing one (a view, not a copy). */
  body(from = 0, to = this.count): Buffer {
    return this.buffer.subarray(this.start(from), this.ends[to - 1]! - 1);
  }

  /** Line i as text (for dead letters, a rare path). */
  line(i: number): string {
    return this.buffer.toString('utf8', this.start(i), this.ends[i]! - 1);
  }

  lines(from = 0, to = this.count): string[] {
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(this.line(i));
    return out;
  }

  owner(i: number): Owner {
    return this.owners[i] as Owner;
  }

  measurement(i: number): string {
    return this.measurements[i]!;
  }

  /** Drops the lines whose owner fails `keep`, in place; returns how many were dropped. */
  retain(keep: (owner: Owner) => boolean): number {
    let kept = 0;
    let write = 0;
    for (let i = 0; i < this.lineCount; i++) {
      if (!keep(this.owners[i]!)) continue;
      const start = this.start(i);
      const end = this.ends[i]!;
      if (write !== start) this.buffer.copyWithin(write, start, end);
      write += end - start;
      this.ends[kept] = write;
      this.owners[kept] = this.owners[i]!;
      this.measurements[kept] = this.measurements[i]!;
      kept++;
    }
    const dropped = this.lineCount - kept;
    this.owners.fill(undefined, kept, this.lineCount);
    this.lineCount = kept;
    this.used = write;
    return dropped;
  }

  /** Hands the buffer back to the pool and empties the batch; a body taken from it may not be used after. */
  release(): void {
    this.pool?.give(this.buffer);
    this.buffer = NO_BYTES;
    this.used = 0;
    this.owners.fill(undefined, 0, this.lineCount); // no write's ticket kept alive by a spare batch
    this.lineCount = 0;
  }

  /** The line's text is in place up to `end` (with room for its newline). */
  private commit(end: number, measurement: string, owner: Owner): void {
    this.buffer[end] = NEWLINE;
    this.used = end + 1;
    const i = this.lineCount++;
    this.ends[i] = this.used;
    this.owners[i] = owner;
    this.measurements[i] = measurement;
  }

  private start(i: number): number {
    return i === 0 ? 0 : this.ends[i - 1]!;
  }

  /** A bigger buffer keeping bytes [0, keep): the pool's first, then doubling. */
  private grow(keep: number, atLeast: number): void {
    if (this.buffer.length === 0 && this.pool) this.buffer = this.pool.take();
    if (atLeast <= this.buffer.length) return;
    const next = Buffer.allocUnsafe(Math.max(atLeast, this.buffer.length * 2, MIN_CAPACITY));
    this.buffer.copy(next, 0, 0, keep);
    this.buffer = next;
  }
}
