import { readFileSync } from 'node:fs';
import { PasswordFileError, UNSENDABLE_TOKEN } from '../../auth/errors.js';
import { passwordFileReader } from '../../auth/password-file.js';
import { LoginTokenProvider } from '../../auth/login.js';
import type { LoginLedger } from '../../auth/login-stop.js';
import { DEFAULT_STATE_DIR } from '../../config/state-dir.js';
import { StaticTokenProvider, type TokenProvider } from '../../http/token-provider.js';
import { hasControlCharacter, isHeaderSafe, withoutLineEnds } from '../../secrets.js';
import { DEFAULT_LOGIN_BODY } from '../../spec/login.js';
import { CliError, EXIT_USAGE } from './common.js';
import type { ConnectionOptions, DvrIo } from './dvr-args.js';

/** Shown when the token is an argument: every local user can read it from `ps` or /proc/<pid>/cmdline. */
export const TOKEN_ARGUMENT_WARNING =
  'warning: --token is visible to other users of this machine (ps); prefer CDN_TOKEN or --token-file <path>\n';

const SOURCES_TEXT =
  'set CDN_TOKEN, pass --token-file <path>, or log in with --username (CDN_USERNAME) and CDN_PASSWORD or ' +
  '--password-file (CDN_PASSWORD_FILE)';

/**
 * `--base-url`, else `CDN_BASE_URL`; and the same three token sources as `run`: a token (`--token-file`, `--token`
 * with a warning on `warn`, `CDN_TOKEN`), or a login (`--username`/`CDN_USERNAME` with `CDN_PASSWORD`,
 * `--password-file` or `CDN_PASSWORD_FILE`), which logs in once, on the first call. Flags win over the environment; two
 * sources of one kind are a usage error naming them. The token and the password are never part of a message.
 */
export function resolveConnection(
  o: ConnectionOptions,
  env: DvrIo['env'],
  warn: (text: string) => void = (text) => process.stderr.write(text),
  stateDir = DEFAULT_STATE_DIR,
): { baseUrl: string; token: TokenProvider } {
  const vars = oneLineSecrets(env);
  const baseUrl = o.baseUrl ?? vars.CDN_BASE_URL;
  if (o.token !== undefined && o.tokenFile !== undefined)
    throw new CliError('give either --token or --token-file, not both', EXIT_USAGE);
  if (!baseUrl) throw new CliError('missing base URL: pass --base-url or set CDN_BASE_URL', EXIT_USAGE);
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new CliError('--base-url must be an http(s) URL', EXIT_USAGE);
  }
  const flagToken = o.token !== undefined || o.tokenFile !== undefined;
  if (flagToken && o.username !== undefined)
    throw new CliError('give either a token (--token, --token-file) or --username, not both', EXIT_USAGE);
  if (o.username === undefined && o.passwordFile !== undefined)
    throw new CliError('--password-file goes with --username', EXIT_USAGE);
  if (flagToken) {
    if (o.token !== undefined) warn(TOKEN_ARGUMENT_WARNING);
    return {
      baseUrl,
      token: new StaticTokenProvider(
        sendable(
          o.tokenFile !== undefined ? readTokenFile(o.tokenFile) : o.token!,
          o.tokenFile ? '--token-file' : '--token',
        ),
        'the token',
      ),
    };
  }
  const username = o.username ?? vars.CDN_USERNAME;
  if (username === undefined || username === '') {
    if (!vars.CDN_TOKEN) throw new CliError(`missing token: ${SOURCES_TEXT}`, EXIT_USAGE);
    return { baseUrl, token: new StaticTokenProvider(sendable(vars.CDN_TOKEN, 'CDN_TOKEN'), 'CDN_TOKEN') };
  }
  if (o.username === undefined && vars.CDN_TOKEN)
    throw new CliError('both CDN_TOKEN and CDN_USERNAME are set: unset one', EXIT_USAGE);
  const ledger = lazyLedger(stateDir, username);
  return { baseUrl, token: loginProvider(baseUrl, username, o, vars, ledger) };
}

/** The variables without the line end a mounted secret keeps; a control character inside one is a usage error. */
function oneLineSecrets(env: DvrIo['env']): DvrIo['env'] {
  const out = { ...env };
  for (const name of ['CDN_BASE_URL', 'CDN_TOKEN', 'CDN_USERNAME', 'CDN_PASSWORD'] as const) {
    const value = env[name];
    if (value === undefined) continue;
    out[name] = withoutLineEnds(value);
    if (hasControlCharacter(out[name]!))
      throw new CliError(`${name} holds a control character (a line break inside it?): check the secret`, EXIT_USAGE);
  }
  return out;
}

/** A token no header can carry is refused before any call (undici would refuse every call with it). */
function sendable(token: string, source: string): string {
  if (!isHeaderSafe(token)) throw new CliError(`${source}: the token ${UNSENDABLE_TOKEN}`, EXIT_USAGE);
  return token;
}

/**
 * Where `api` and `dvr` count refused logins with every other process: the state.dir of the config given with
 * `-c` (only that field is read; the credentials still come from the flags and the environment), else
 * DEFAULT_STATE_DIR. The config is read only when given.
 */
export async function loginStateDir(o: ConnectionOptions): Promise<string> {
  if (o.config === undefined) return DEFAULT_STATE_DIR;
  const { ConfigError, readConfigDocument } = await import('../../config/loader.js');
  const state = readConfigDocument(o.config).raw.state;
  const dir = typeof state === 'object' && state !== null ? (state as { dir?: unknown }).dir : undefined;
  if (dir === undefined) return DEFAULT_STATE_DIR;
  if (typeof dir !== 'string' || dir === '') throw new ConfigError('state.dir', `${o.config}: must be a path`);
  return dir;
}

/** The state dir's count of refused logins, its module (and zod) loaded only when a login needs it. */
function lazyLedger(stateDir: string, username: string): LoginLedger {
  let file: Promise<LoginLedger> | undefined;
  let opened: LoginLedger | undefined;
  const open = async () =>
    (opened = await (file ??= import('../../state/login-refusals.js').then(
      (m) => new m.LoginRefusalFile(stateDir, username),
    )));
  return {
    // Named after a read: the file's path then.
    get where() {
      return opened?.where ?? stateDir;
    },
    read: async () => (await open()).read(),
    update: async (change) => (await open()).update(change),
  };
}

const CLI_FIX =
  'the password (CDN_PASSWORD, or the file of --password-file / CDN_PASSWORD_FILE) or the username ' +
  '(--username, CDN_USERNAME)';

function loginProvider(
  baseUrl: string,
  username: string,
  o: ConnectionOptions,
  env: DvrIo['env'],
  ledger: LoginLedger,
): TokenProvider {
  const passwordFile = o.passwordFile;
  const file = passwordFile ?? (env.CDN_PASSWORD === undefined ? env.CDN_PASSWORD_FILE : undefined);
  if (file === undefined && !env.CDN_PASSWORD) {
    throw new CliError(
      'a login needs a password: set CDN_PASSWORD or pass --password-file <path> (CDN_PASSWORD_FILE)',
      EXIT_USAGE,
    );
  }
  let password: string | (() => string);
  try {
    password = file !== undefined ? passwordFileReader(file) : env.CDN_PASSWORD!;
  } catch (err) {
    if (err instanceof PasswordFileError) throw new CliError(`--password-file: ${err.path} ${err.problem}`, EXIT_USAGE);
    throw err;
  }
  return new LoginTokenProvider({
    baseUrl,
    username,
    password,
    bodyFormat: DEFAULT_LOGIN_BODY,
    timeoutMs: 30_000,
    ledger,
    forceLogin: o.forceLogin ?? false,
    fix: CLI_FIX,
  });
}

/** The first line of a token file (trailing newline and spaces removed), e.g. a mounted secret. */
function readTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(
      `--token-file: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      EXIT_USAGE,
    );
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  if (!token) throw new CliError(`--token-file: ${path} is empty`, EXIT_USAGE);
  return token;
}
