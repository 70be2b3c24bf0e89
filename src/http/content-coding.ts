import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress } from 'node:zlib';
import { ContentEncodingError } from './errors.js';
import { DeflateDecoder, GzipMemberDecoder } from './inflate.js';

/**
 * The content codings the client decodes, by their HTTP name (RFC 9110 §8.4.1; `x-gzip` is gzip's old alias), read
 * as curl and browsers read them: gzip's first member (stray bytes after it ignored), `deflate` in zlib format or raw.
 */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: () => new GzipMemberDecoder(),
  'x-gzip': () => new GzipMemberDecoder(),
  deflate: () => new DeflateDecoder(),
  br: createBrotliDecompress,
};

/** What every request to the APIs asks for: the codings the collector can decode, so large answers travel compressed.
 * */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** What a body in a coding the client does not know fails with. */
function unsupported(coding: string): ContentEncodingError {
  const known = [...Object.keys(DECODERS), 'identity'].join(', ');
  return new ContentEncodingError(
    coding,
    'unsupported',
    `Content-Encoding "${coding}" is not supported (the collector decodes ${known})`,
  );
}

/**
 * The codings of a Content-Encoding header in the order they were applied, `identity` left out (no header: none).
 * Lower-cased: coding names are case-insensitive.
 */
export function contentCodings(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** A body being decoded, and what broke its decoding if a decoder failed. */
export interface DecodedBody {
  stream: Readable;
  /** After `stream` failed: a ContentEncodingError when a decoder broke, undefined when the body itself did. */
  failure(): ContentEncodingError | undefined;
}

/**
 * The body decoded: each coding undone in the reverse of the order it was applied ("gzip, br": br first). Throws
 * ContentEncodingError for a coding it does not know, before a byte is read. The decoders honour backpressure, so a
 * reader
 * that stops early (the body cap) stops the inflating too: a small compressed body never expands in memory beyond
 * what was read of it.
 */
export function decodeBody(body: Readable, header: string | string[] | undefined): DecodedBody {
  const codings = contentCodings(header);
  if (codings.length === 0) return { stream: body, failure: () => undefined };
  const unknown = codings.find((c) => !Object.hasOwn(DECODERS, c));
  if (unknown !== undefined) {
    body.once('error', () => {}).destroy(); // undici reports an unread body's destruction as an error: expected here
    throw unsupported(unknown);
  }
  // The first stream to fail is where it broke (pipeline then destroys the others with the same error): the body's
  // own failures (reset, timeout) keep their type.
  let failure: ContentEncodingError | 'body' | undefined;
  body.once('error', () => (failure ??= 'body'));
  const decoders = codings.reverse().map((coding) => {
    const decoder = DECODERS[coding]!();
    decoder.once('error', (err: Error) => (failure ??= corrupt(coding, err)));
    return decoder;
  });
  pipeline([body, ...decoders], () => {}); // errors surface from the last decoder, read by the caller
  return { stream: decoders.at(-1)!, failure: () => (failure === 'body' ? undefined : failure) };
}

function corrupt(coding: string, err: Error): ContentEncodingError {
  return new ContentEncodingError(
    coding,
    'corrupt',
    `the ${coding} body cannot be decoded (corrupt or cut off): ${err.message}`,
  );
}
