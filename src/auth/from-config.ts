import type { Clock } from '../clock.js';
import { ConfigError } from '../config/loader.js';
import type { CollectorConfig } from '../config/schema.js';
import { PasswordFileError } from './errors.js';
import { passwordFileReader } from './password-file.js';
import { LoginTokenProvider } from './login.js';
import type { LoginLedger } from './login-stop.js';
import { StaticTokenProvider, type TokenProvider } from '../http/token-provider.js';
import type { AuthEvent } from './events.js';
import { FileTokenProvider } from './token-file.js';
import { LoginRefusalFile } from '../state/login-refusals.js';

/** What to fix when the service refuses the credentials of a configured login. */
const CONFIG_FIX =
  'api.username / api.password (CDN_USERNAME, CDN_PASSWORD) or the password file (api.passwordFile, ' +
  'CDN_PASSWORD_FILE: read again before each try)';

/** The token source the `api` section configures (the schema has checked that exactly one is). */
export function tokenProviderFor(
  api: CollectorConfig['api'],
  options: {
    clock: Clock;
    onEvent: (e: AuthEvent) => void;
    /** Where refused logins are counted for every process (state.dir). */
    stateDir: string;
    forceLogin?: boolean | undefined;
    /** The count's file cannot be read or saved (the count is kept in memory then). */
    onProblem?: (message: string) => void;
  },
): TokenProvider {
  if (api.tokenFile !== undefined) return new FileTokenProvider(api.tokenFile, options.onEvent);
  if (api.username === undefined) return new StaticTokenProvider(api.token!);
  return new LoginTokenProvider({
    baseUrl: api.baseUrl,
    username: api.username,
    password: api.password ?? passwordFromFile(api.passwordFile!),
    bodyFormat: api.loginBody,
    timeoutMs: api.timeout,
    renewAfter: api.renewAfter,
    clock: options.clock,
    onEvent: options.onEvent,
    ledger: refusalLedger(options.stateDir, api.username, options.onProblem),
    forceLogin: options.forceLogin ?? false,
    fix: CONFIG_FIX,
  });
}

/** An unreadable or empty password file is a config error (exit 2) rather than a login failing every few minutes. */
function passwordFromFile(path: string): () => string {
  try {
    return passwordFileReader(path);
  } catch (err) {
    if (err instanceof PasswordFileError) throw new ConfigError('api.passwordFile', `${path} ${err.problem}`);
    throw err;
  }
}

/** The refused logins of `username`, counted in `<stateDir>/login-refusals.json` for every process on that dir. */
export function refusalLedger(stateDir: string, username: string, onProblem?: (message: string) => void): LoginLedger {
  return new LoginRefusalFile(stateDir, username, onProblem);
}
