import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

const ENCODERS: Readonly<Record<string, (data: Buffer) => Buffer>> = {
  gzip: gzipSync,
  'x-gzip': gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

/**
 * An answer's body as a compressing provider or proxy sends it (`SimSettings.contentEncoding`): `auto` gzips when the
 * request accepts gzip (nginx's `gzip on`); otherwise the listed codings are applied in order whatever the request
 * asked ("gzip, br": gzip, then br). A name the simulator cannot encode (e.g. `zstd`) is declared over the plain body,
 * as a misconfigured proxy would.
 */
export function encodeAnswer(
  text: string,
  setting: string,
  acceptEncoding: string | undefined,
): { body: Buffer | string; header?: string } {
  const codings =
    setting === 'auto'
      ? /\bgzip\b/i.test(acceptEncoding ?? '')
        ? ['gzip']
        : []
      : setting
          .split(',')
          .map((c) => c.trim().toLowerCase())
          .filter((c) => c !== '');
  if (codings.length === 0) return { body: text };
  let body: Buffer = Buffer.from(text, 'utf8');
  for (const coding of codings) body = ENCODERS[coding]?.(body) ?? body;
  return { body, header: codings.join(', ') };
}
