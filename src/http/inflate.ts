/**
 * gzip and deflate decoders that read answers as curl and browsers do, where node:zlib's own streams are stricter:
 * - gzip: the body is the first gzip member; bytes after it (a proxy's stray CR LF) are ignored, not read as the
 *   start of a broken second member.
 * - deflate: the zlib format RFC 9110 names, or the raw DEFLATE data many servers send under that name, told apart
 *   by the zlib header.
 * Both pass zlib's output on with backpressure, so a reader that stops (the body cap) stops the inflating too.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { crc32, createInflate, createInflateRaw, type Inflate, type InflateRaw } from 'node:zlib';

type Inflater = Inflate | InflateRaw;

const GZIP_TRAILER_BYTES = 8;
/** A header longer than this (a file name or comment that never ends) is not an answer's gzip header. */
const MAX_GZIP_HEADER_BYTES = 64 * 1024;

/** A Transform whose output is that of one zlib inflater it starts itself once it has seen enough of the input. */
abstract class InflaterHost extends Transform {
  protected inflater: Inflater | undefined;
  private ended = false;
  private onEnd: (() => void) | undefined;

  protected start(inflater: Inflater): Inflater {
    this.inflater = inflater;
    inflater.on('data', (chunk: Buffer) => {
      this.output(chunk);
      if (!this.push(chunk)) inflater.pause(); // resumed by _read: the reader's pace is the inflater's
    });
    inflater.once('end', () => {
      this.ended = true;
      this.onEnd?.();
    });
    inflater.once('error', (err) => this.destroy(err));
    return inflater;
  }

  /** Each decoded chunk, before it is passed on. */
  protected output(_chunk: Buffer): void {}

  /** Calls `then` once the inflater has passed on all its output (ending its input first). */
  protected whenInflated(then: () => void): void {
    if (this.ended) {
      then();
      return;
    }
    this.onEnd = then;
    this.inflater!.end();
  }

  override _read(size: number): void {
    this.inflater?.resume();
    super._read(size);
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.inflater?.destroy();
    callback(err);
  }
}

/** Decodes the first gzip member of its input (RFC 1952) and ignores what follows it. */
export class GzipMemberDecoder extends InflaterHost {
  private state: 'header' | 'data' | 'trailer' = 'header';
  /** Header bytes until the header is whole, then the trailer's bytes. */
  private held = Buffer.alloc(0);
  private givenToInflater = 0;
  private crc = 0;
  private size = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.state === 'header') {
      this.held = Buffer.concat([this.held, chunk]);
      let length: number | undefined;
      try {
        length = gzipHeaderLength(this.held);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (length === undefined) {
        done();
        return;
      }
      chunk = this.held.subarray(length);
      this.held = Buffer.alloc(0);
      this.state = 'data';
      this.start(createInflateRaw());
    }
    if (this.state === 'trailer') {
      this.holdTrailer(chunk, done);
      return;
    }
    const inflater = this.inflater!;
    this.givenToInflater += chunk.length;
    inflater.write(chunk, () => {
      // zlib takes every byte given until its stream ends; the bytes it left are the trailer and what follows.
      const left = this.givenToInflater - inflater.bytesWritten;
      if (left === 0) {
        done();
        return;
      }
      this.state = 'trailer';
      this.holdTrailer(chunk.subarray(chunk.length - left), done);
    });
  }

  override _flush(done: TransformCallback): void {
    if (this.state === 'header') {
      // No body at all is an empty answer; part of a header is a body cut off.
      done(this.held.length === 0 ? undefined : new Error('unexpected end of file'));
      return;
    }
    this.whenInflated(() => done(this.trailerProblem()));
  }

  protected override output(chunk: Buffer): void {
    this.crc = crc32(chunk, this.crc);
    this.size += chunk.length;
  }

  private holdTrailer(chunk: Buffer, done: TransformCallback): void {
    const wanted = GZIP_TRAILER_BYTES - this.held.length;
    if (wanted > 0) this.held = Buffer.concat([this.held, chunk.subarray(0, wanted)]);
    done(); // anything past the trailer is ignored
  }

  /** What the trailer says is wrong with the data inflated (zlib's words), or undefined when it matches. */
  private trailerProblem(): Error | undefined {
    if (this.held.length < GZIP_TRAILER_BYTES) return new Error('unexpected end of file');
    if (this.held.readUInt32LE(0) !== this.crc) return new Error('incorrect data check');
    if (this.held.readUInt32LE(4) !== this.size % 2 ** 32) return new Error('incorrect length check');
    return undefined;
  }
}

/**
 * The length of the gzip header at the start of `bytes`, or undefined while it is incomplete. Throws on bytes that
 * cannot start a gzip member.
 */
function gzipHeaderLength(bytes: Buffer): number | undefined {
  const magic = [0x1f, 0x8b, 8]; // ID1, ID2, CM = deflate
  for (let i = 0; i < Math.min(magic.length, bytes.length); i++) {
    if (bytes[i] !== magic[i]) throw new Error('incorrect header check');
  }
  if (bytes.length > MAX_GZIP_HEADER_BYTES) throw new Error('gzip header too long');
  if (bytes.length < 10) return undefined;
  const flags = bytes[3]!;
  if (flags & 0xe0) throw new Error('unknown header flags set');
  let at = 10;
  if (flags & 0x04) {
    if (bytes.length < at + 2) return undefined;
    at += 2 + bytes.readUInt16LE(at); // FEXTRA
  }
  for (const zeroEnded of [0x08, 0x10]) {
    if (!(flags & zeroEnded)) continue; // FNAME, FCOMMENT
    const end = at < bytes.length ? bytes.indexOf(0, at) : -1;
    if (end < 0) return undefined;
    at = end + 1;
  }
  if (flags & 0x02) at += 2; // FHCRC
  return at <= bytes.length ? at : undefined;
}

/** Decodes `deflate`: zlib format when the input starts with a zlib header, raw DEFLATE data otherwise. */
export class DeflateDecoder extends InflaterHost {
  private head = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (!this.inflater) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 2) {
        done();
        return;
      }
      chunk = this.head;
      this.start(isZlibHeader(this.head) ? createInflate() : createInflateRaw());
    }
    this.inflater!.write(chunk, () => done());
  }

  override _flush(done: TransformCallback): void {
    if (!this.inflater) {
      if (this.head.length === 0) {
        done();
        return;
      }
      this.start(createInflateRaw()).write(this.head);
    }
    this.whenInflated(() => done());
  }
}

/** RFC 1950: method 8 (deflate) with a window of at most 32 KB, and the header's check bits. */
function isZlibHeader(bytes: Buffer): boolean {
  const cmf = bytes[0]!;
  const flg = bytes[1]!;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}
