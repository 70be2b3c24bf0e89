import { readFileSync } from 'node:fs';
import { PasswordFileError, UNSENDABLE_TOKEN } from '../auth/errors.js';
import { passwordFileReader } from '../auth/password-file.js';
import { LoginTokenProvider } from '../auth/login.js';
import { StaticTokenProvider, type TokenProvider } from '../auth/provider.js';
import { hasControlCharacter, isHeaderSafe, withoutLineEnds } from '../secrets.js';
import { DEFAULT_LOGIN_BODY } from '../spec/login.js';
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
  return { baseUrl, token: loginProvider(baseUrl, username, o.passwordFile, vars) };
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

function loginProvider(
  baseUrl: string,
  username: string,
  passwordFile: string | undefined,
  env: DvrIo['env'],
): TokenProvider {
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
  return new LoginTokenProvider({ baseUrl, username, password, bodyFormat: DEFAULT_LOGIN_BODY, timeoutMs: 30_000 });
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
