import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs (pretty on a TTY). Secrets are kept out at the source — typed errors carry redacted requests and the
 * config is never logged whole — and these paths are censored as a second line of defence.
 */
export function createLogger(level: string, options: { pretty?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const pretty = options.pretty ?? Boolean(process.stderr.isTTY);
  const base = {
    level,
    redact: { paths: ['token', '*.token', 'password', '*.password', 'headers["cdn-auth-token"]'], censor: '***' },
  };
  if (pretty && !options.destination) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}
