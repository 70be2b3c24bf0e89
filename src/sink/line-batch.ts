/**
 * One request's worth of lines, encoded into a single growing byte buffer as they are queued. Each line is a
 * short-lived string that dies young once copied in, instead of thousands of strings (ropes built piece by piece) kept
 * alive until the batch is joined: that join and the GC it caused took about half the sink's CPU. Memory is bounded by
 * the sink's line capacity (batch size × (requests in flight + 1)) times the bytes of a line.
 */

const NEWLINE = 0x0a;
/** UTF-16 code units to UTF-8 bytes: at most 3 bytes per unit (a surrogate pair: 4 bytes for 2 units). */
const MAX_BYTES_PER_UNIT = 3;
const MIN_CAPACITY = 16 * 1024;

/**
 * Buffers of finished batches, reused by the next ones: a few long-lived buffers instead of megabytes malloc'd and
 * freed per request, which the allocator does not hand back to the system (RSS stays at its high-water mark).
 */
export class BufferPool {
  private readonly free: Buffer[] = [];
  constructor(private readonly limit: number) {}

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(MIN_CAPACITY);
  }

  give(buffer: Buffer): void {
    if (this.free.length < this.limit) this.free.push(buffer);
  }
}

/** Lines in bytes (each followed by `\n`), with, per line, the owner (a write's ticket) and its measurement. */
export class LineBatch<Owner> {
  private used = 0;
  /** Byte offset just past each line's `\n`. */
  private readonly ends: number[] = [];
  private readonly owners: Owner[] = [];
  private readonly measurements: string[] = [];

  /** Starts small (a daemon's pass writes few lines) and doubles: a copy per doubling is cheap next to encoding. */
  private bytes: Buffer;

  constructor(private readonly pool?: BufferPool) {
    this.bytes = pool?.take() ?? Buffer.allocUnsafe(MIN_CAPACITY);
  }

  get count(): number {
    return this.ends.length;
  }

  get byteLength(): number {
    return this.used;
  }

  append(line: string, measurement: string, owner: Owner): void {
    const worst = this.used + line.length * MAX_BYTES_PER_UNIT + 1;
    if (worst > this.bytes.length) this.grow(worst);
    this.used += this.bytes.write(line, this.used, 'utf8');
    this.bytes[this.used++] = NEWLINE;
    this.ends.push(this.used);
    this.owners.push(owner);
    this.measurements.push(measurement);
  }

  /** Lines [from, to) as a request body: joined by `\n`, without a trailing one (a view, not a copy). */
  body(from = 0, to = this.count): Buffer {
    return this.bytes.subarray(this.start(from), this.ends[to - 1]! - 1);
  }

  /** Line i as text (for dead letters, a rare path). */
  line(i: number): string {
    return this.bytes.toString('utf8', this.start(i), this.ends[i]! - 1);
  }

  lines(from = 0, to = this.count): string[] {
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(this.line(i));
    return out;
  }

  owner(i: number): Owner {
    return this.owners[i]!;
  }

  measurement(i: number): string {
    return this.measurements[i]!;
  }

  /** Drops the lines whose owner fails `keep`, in place; returns how many were dropped. */
  retain(keep: (owner: Owner) => boolean): number {
    let kept = 0;
    let write = 0;
    for (let i = 0; i < this.ends.length; i++) {
      if (!keep(this.owners[i]!)) continue;
      const start = this.start(i);
      const end = this.ends[i]!;
      if (write !== start) this.bytes.copyWithin(write, start, end);
      write += end - start;
      this.ends[kept] = write;
      this.owners[kept] = this.owners[i]!;
      this.measurements[kept] = this.measurements[i]!;
      kept++;
    }
    const dropped = this.ends.length - kept;
    this.ends.length = this.owners.length = this.measurements.length = kept;
    this.used = write;
    return dropped;
  }

  /** Hands the buffer back to the pool; neither the batch nor a body taken from it may be used after. */
  release(): void {
    this.pool?.give(this.bytes);
  }

  private start(i: number): number {
    return i === 0 ? 0 : this.ends[i - 1]!;
  }

  private grow(atLeast: number): void {
    const next = Buffer.allocUnsafe(Math.max(atLeast, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.used);
    this.bytes = next;
  }
}
