import pino, { type Logger } from 'pino';
import { useColour } from './colour.js';
import { redactSecrets } from './secrets.js';

export type { Logger };

/** The config's `log` section: the level, and the format when one was chosen (flag, env or file). */
export interface LogSettings {
  level: string;
  format?: 'json' | 'pretty';
}

/**
 * JSON logs, or pretty ones (by default on a TTY). Secrets are kept out at the source — typed errors carry redacted
 * requests and the config is never logged whole — these paths are censored, and every serialized line passes the
 * secret redactor (src/secrets.ts) whatever it quotes: an error body, a stack, a field a server filled.
 */
export function createLogger(
  settings: string | LogSettings,
  options: { pretty?: boolean; destination?: NodeJS.WritableStream } = {},
): Logger {
  const { level, format } = typeof settings === 'string' ? { level: settings, format: undefined } : settings;
  const pretty = options.pretty ?? (format ? format === 'pretty' : Boolean(process.stderr.isTTY));
  const base = {
    level,
    redact: { paths: ['token', '*.token', 'password', '*.password', 'headers["cdn-auth-token"]'], censor: '***' },
    hooks: { streamWrite: redactSecrets },
  };
  if (pretty && !options.destination) {
    const colorize = useColour(process.stderr);
    return pino({
      ...base,
      transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss', colorize } },
    });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}
