import type { Clock } from '../clock.js';
import { ConfigError } from '../config/loader.js';
import type { CollectorConfig } from '../config/schema.js';
import { PasswordFileError } from './errors.js';
import { passwordFileReader } from './password-file.js';
import { LoginTokenProvider } from './login.js';
import { StaticTokenProvider, type AuthEvent, type TokenProvider } from './provider.js';
import { FileTokenProvider } from './token-file.js';

/** The token source the `api` section configures (the schema has checked that exactly one is). */
export function tokenProviderFor(
  api: CollectorConfig['api'],
  options: { clock: Clock; onEvent: (e: AuthEvent) => void },
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
