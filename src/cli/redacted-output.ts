import { redactSecrets } from '../secrets.js';

/**
 * Routes everything written to `stream` through the secret redactor: error messages, `--json` output, help, commander's
 * own messages, whatever a command prints. The CLI applies it to stdout and stderr before anything runs, so a secret
 * registered at any point (config loading, `--token`) is redacted from then on.
 */
export function redactWrites(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string') return write(redactSecrets(chunk), ...rest);
    if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk).toString('utf8');
      const clean = redactSecrets(text);
      return write(clean === text ? chunk : Buffer.from(clean), ...rest); // bytes untouched unless a secret was in them
    }
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

/**
 * `redactWrites` (then `prepare`, if given) on `process[name]` when something first reads it. Node creates each stdio
 * stream on first read (for a pipe, a socket: net and the stream classes, ~10 ms of start-up): `--help` never writes
 * to stderr, and a command that does gets the same redacted stream as before.
 */
export function redactWritesOnFirstUse(
  owner: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream },
  name: 'stdout' | 'stderr',
  prepare: (stream: NodeJS.WriteStream) => void = () => {},
): void {
  const create = Object.getOwnPropertyDescriptor(owner, name)?.get;
  if (!create) {
    redactWrites(owner[name]);
    prepare(owner[name]);
    return;
  }
  let stream: NodeJS.WriteStream | undefined;
  Object.defineProperty(owner, name, {
    configurable: true,
    enumerable: true,
    get: () => {
      if (!stream) {
        stream = create.call(owner) as NodeJS.WriteStream;
        redactWrites(stream);
        prepare(stream);
      }
      return stream;
    },
  });
}
