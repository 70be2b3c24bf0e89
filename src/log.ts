import pino, { type Logger } from 'pino';
import { redactSecrets } from './secrets.js';

export type { Logger };

/**
 * JSON logs (pretty on a TTY). Secrets are kept out at the source — typed errors carry redacted requests and the
 * config is never logged whole — these paths are censored, and every serialized line passes the secret redactor
 * (src/secrets.ts) whatever it quotes: an error body, a stack, a field a server filled.
 */
export function createLogger(level: string, options: { pretty?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const pretty = options.pretty ?? Boolean(process.stderr.isTTY);
  const base = {
    level,
    redact: { paths: ['token', '*.token', 'password', '*.password', 'headers["cdn-auth-token"]'], censor: '***' },
    hooks: { streamWrite: redactSecrets },
  };
  if (pretty && !options.destination) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}
