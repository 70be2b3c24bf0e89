import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';

/** A pino logger at trace that writes into a string (to show what a log would carry, e.g. no secret). */
export function capturedLogger(): { log: ReturnType<typeof createLogger>; text: () => string } {
  let out = '';
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { log: createLogger('trace', { pretty: false, destination }), text: () => out };
}
