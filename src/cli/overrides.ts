import { type Command, InvalidArgumentError, Option } from 'commander';
import { LISTEN_ENV, parseListen } from '../config/env.js';

/**
 * The flags that override the configuration file and its environment variables: `--log-level`, `--log-format`,
 * `--listen`. Each is passed on as its environment variable before the command runs, so the one path that reads the
 * environment (src/config/env.ts) applies it: precedence flag > environment > file > default, with no command
 * having to know the flags.
 */
const FLAG_ENV = { logLevel: 'LOG_LEVEL', logFormat: 'LOG_FORMAT', listen: LISTEN_ENV } as const;

function logOptions(): Option[] {
  return [
    new Option('--log-level <level>', `log level (env LOG_LEVEL; config log.level)`).choices([
      'fatal',
      'error',
      'warn',
      'info',
      'debug',
      'trace',
    ]),
    new Option(
      '--log-format <format>',
      'json or pretty (env LOG_FORMAT; config log.format; default: pretty on a terminal)',
    ).choices(['json', 'pretty']),
  ];
}

function listenOption(): Option {
  return new Option(
    '--listen <host:port>',
    `the /healthz and /metrics listener, e.g. 127.0.0.1:9464 (env ${LISTEN_ENV}; config http.host, http.port)`,
  ).argParser((text) => {
    if (!parseListen(text))
      throw new InvalidArgumentError('must be host:port, e.g. 127.0.0.1:9464, [::]:9464 or :9464');
    return text;
  });
}

/** Adds the log flags (and, with `listen`, `--listen`) to `command`, and passes them on as environment variables. */
export function withOverrideFlags(command: Command, { listen = false } = {}): Command {
  for (const option of [...logOptions(), ...(listen ? [listenOption()] : [])]) command.addOption(option);
  return command.hook('preAction', (_parent, action) => {
    const given = action.opts<Partial<Record<keyof typeof FLAG_ENV, string>>>();
    for (const [key, variable] of Object.entries(FLAG_ENV) as Array<[keyof typeof FLAG_ENV, string]>) {
      if (given[key] !== undefined) process.env[variable] = given[key];
    }
  });
}
