/**
 * Writes line-protocol pieces straight into a byte buffer: cached byte prefixes, numbers as digits, text as UTF-8.
 * Nothing here allocates per call on the common paths (an integer, a float with up to 9 decimals, ASCII or cached
 * bytes), so encoding a point leaves no garbage behind.
 */

/** Where a writer writes: a byte buffer that can grow. */
export interface ByteTarget {
  readonly bytes: Buffer;
  /** Makes room for `size` bytes from `at`, keeping bytes [0, at); returns the buffer now in use. */
  reserve(at: number, size: number): Buffer;
}

/** A target of its own that only grows: for a line at a time (the string encoder, a trial encoding). */
export class GrowingBytes implements ByteTarget {
  bytes = Buffer.allocUnsafe(1024);

  reserve(at: number, size: number): Buffer {
    if (at + size <= this.bytes.length) return this.bytes;
    const next = Buffer.allocUnsafe(Math.max(at + size, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, at);
    this.bytes = next;
    return next;
  }
}

/** Powers of ten exact as doubles, for the decimals of a float. */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
const MAX_DECIMALS = 9;
/**
 * A float's digits are written without its string only while `|value| × 10^decimals` stays below 2^50: then at most
 * one number with that many decimals reads back as the value, rounding cannot pick a neighbour, and the fewest
 * decimals that read back are exactly the shortest round-trip form that String() prints.
 */
const EXACT_SCALED = 2 ** 50;
/** Below this, String() switches to exponent notation (`1e-7`). */
const MIN_PLAIN = 1e-6;
const ZERO = 0x30;
const MINUS = 0x2d;
const DOT = 0x2e;

export class ByteWriter {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  private target: ByteTarget | undefined;

  /** Starts writing into `target` at `at`. */
  begin(target: ByteTarget, at: number): void {
    this.target = target;
    this.buf = target.bytes;
    this.pos = at;
  }

  /** Ensures `size` more bytes fit. */
  room(size: number): void {
    if (this.pos + size > this.buf.length) this.buf = this.target!.reserve(this.pos, size);
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  bytes(src: Uint8Array): void {
    const n = src.length;
    this.room(n);
    const buf = this.buf;
    let pos = this.pos;
    // A loop beats a native copy for the short names and tags of a line.
    if (n <= 32) for (let i = 0; i < n; i++) buf[pos++] = src[i]!;
    else {
      buf.set(src, pos);
      pos += n;
    }
    this.pos = pos;
  }

  /** Text known to be ASCII (a number's String()). */
  ascii(text: string): void {
    const n = text.length;
    this.room(n);
    for (let i = 0; i < n; i++) this.buf[this.pos++] = text.charCodeAt(i);
  }

  /** Any text, as UTF-8. */
  utf8(text: string): void {
    this.room(text.length * 3); // UTF-16 code units to UTF-8: at most 3 bytes each
    this.pos += this.buf.write(text, this.pos, 'utf8');
  }

  /** An integer as String() prints it (`-0` as `0`; beyond 2^53 through String, which may use an exponent). */
  integer(n: number): void {
    if (!Number.isSafeInteger(n)) {
      this.ascii(String(n));
      return;
    }
    if (n < 0) {
      this.byte(MINUS);
      n = -n;
    }
    this.digits(n, 0);
  }

  /** A finite float as String() prints it. */
  float(value: number): void {
    if (Number.isSafeInteger(value)) {
      this.integer(value);
      return;
    }
    const abs = Math.abs(value);
    if (abs >= MIN_PLAIN) {
      for (let decimals = 1; decimals <= MAX_DECIMALS; decimals++) {
        const scale = POW10[decimals]!;
        const scaled = abs * scale;
        if (scaled >= EXACT_SCALED) break;
        const whole = Math.round(scaled);
        if (whole / scale !== abs) continue;
        if (value < 0) this.byte(MINUS);
        const fraction = whole % scale;
        this.digits((whole - fraction) / scale, 0);
        this.byte(DOT);
        this.digits(fraction, decimals);
        return;
      }
    }
    this.ascii(String(value));
  }

  /** A non-negative safe integer's digits, left-padded with zeros to `width`. */
  private digits(n: number, width: number): void {
    let len = 1;
    for (let p = 10; p <= n; p *= 10) len++;
    if (len < width) len = width;
    this.room(len);
    let i = this.pos + len;
    const buf = this.buf;
    for (let k = 0; k < len; k++) {
      const q = Math.floor(n / 10);
      buf[--i] = ZERO + (n - q * 10);
      n = q;
    }
    this.pos += len;
  }
}
