import type { Dispatcher } from './undici.js';
import { decodeBody } from './content-coding.js';
import type { JsonListSplitter } from './json-list.js';

/** Default cap of one response body: far above any page the collector asks for, far below what hurts the process. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Why a body was refused: the size it declared (content-length) or the bytes read (decoded) when the cap was passed.
 * */
export type Oversize = { declared: number } | { read: number };

/**
 * Reads a response body as UTF-8 text, decoded from its Content-Encoding, holding at most `maxBytes` of it: a declared
 * content-length over the cap is refused before a byte is read, and a streamed body is abandoned (its connection
 * destroyed) as soon as its decoded bytes pass the cap. Memory per call is bounded by the cap whatever the server
 * sends, a compressed body included. Returns the text or what broke the cap; throws ContentEncodingError for a body it
 * cannot decode. With a `splitter`, the bytes go to it as they arrive and the text returned is its envelope.
 */
export async function readCapped(
  res: Dispatcher.ResponseData,
  maxBytes: number,
  splitter?: JsonListSplitter,
): Promise<{ text: string } | { oversize: Oversize }> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    return { oversize: { declared } };
  }
  const decoded = decodeBody(res.body, res.headers['content-encoding']);
  const chunks: Buffer[] = [];
  let read = 0;
  try {
    for await (const chunk of decoded.stream) {
      read += (chunk as Buffer).length;
      if (read > maxBytes) {
        decoded.stream.destroy();
        res.body.destroy();
        return { oversize: { read } };
      }
      if (splitter) splitter.push(chunk as Buffer);
      else chunks.push(chunk as Buffer);
    }
  } catch (err) {
    throw decoded.failure() ?? err;
  }
  return { text: splitter ? splitter.end() : Buffer.concat(chunks, read).toString('utf8') };
}
