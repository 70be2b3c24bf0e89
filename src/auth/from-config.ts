import { readFileSync } from 'node:fs';
import type { Clock } from '../clock.js';
import { ConfigError } from '../config/loader.js';
import type { CollectorConfig } from '../config/schema.js';
import { registerSecret } from '../secrets.js';
import { LoginTokenProvider } from './login.js';
import { StaticTokenProvider, type AuthEvent, type TokenProvider } from './provider.js';
import { FileTokenProvider } from './token-file.js';

/**
 * The token source the `api` section configures (the schema has checked that exactly one is). A password file is
 * read once, at start: an unreadable one is a config error (exit 2) rather than a login failing every few minutes.
 */
export function tokenProviderFor(api: CollectorConfig['api'], options: { clock: Clock; onEvent: (e: AuthEvent) => void }): TokenProvider {
  if (api.tokenFile !== undefined) return new FileTokenProvider(api.tokenFile, options.onEvent);
  if (api.username === undefined) return new StaticTokenProvider(api.token!);
  return new LoginTokenProvider({
    baseUrl: api.baseUrl,
    username: api.username,
    password: api.password ?? readPasswordFile(api.passwordFile!),
    bodyFormat: api.loginBody,
    timeoutMs: api.timeout,
    renewAfter: api.renewAfter,
    clock: options.clock,
    onEvent: options.onEvent,
  });
}

function readPasswordFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError('api.passwordFile', `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const password = text.split(/\r?\n/)[0]!;
  registerSecret(password);
  if (!password) throw new ConfigError('api.passwordFile', `${path} is empty`);
  return password;
}
