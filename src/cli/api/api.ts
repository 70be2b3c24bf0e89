import { Argument, Command, InvalidArgumentError } from 'commander';
import { API_NAMES, type ApiName } from '../../spec/apis.js';
import { collect, forceLoginOption, loginStateOption } from '../common/common.js';
import type { ApiOptions } from './api-action.js';

/** `key=value` → [key, value]; repeated keys become repeated parameters. */
function parseParam(text: string, previous: string[] = []): string[] {
  if (!/^[^=]+=/.test(text)) throw new InvalidArgumentError(`-q: expected key=value, got "${text}"`);
  return collect(text, previous);
}

/**
 * A raw GET on any of the four APIs with the token handled (and never printed): for exploring the simulator or a
 * real account, and for checking what the collector will see. The typed clients behind the collector check every
 * rule of the spec before a call; this command deliberately does not, so that the service's own errors can be seen.
 */
export function apiCommand(): Command {
  const command = new Command('api')
    .description(
      'GET any API path, e.g. `api metrics / -q account=acme -q start=2026-11-23T10:00:00 -q end=2026-11-23T10:10:00`',
    )
    .addArgument(new Argument('<api>', API_NAMES.join(' | ')).choices(API_NAMES))
    .argument('[path]', 'path below the API prefix, e.g. /resources, /times/countries, /acme/streams/live/main', '/')
    .option('-q, --query <key=value>', 'query parameter, repeatable (metric=a -q metric=b repeats it)', parseParam)
    .option('--base-url <url>', 'API base URL (default: env CDN_BASE_URL)')
    .option('--token <token>', 'access token (visible in ps: prefer env CDN_TOKEN or --token-file); never printed')
    .option('--token-file <path>', 'read the access token from this file (first line)')
    .option(
      '--username <name>',
      'log in as this user instead (default: env CDN_USERNAME); password from CDN_PASSWORD or --password-file',
    )
    .option('--password-file <path>', 'the login password: first line of this file (default: env CDN_PASSWORD_FILE)')
    .addOption(loginStateOption())
    .addOption(forceLoginOption());
  // The HTTP client loads when the command runs, not for `api --help` or an argument error.
  return command.action(async (api: ApiName, path: string, o: ApiOptions) =>
    (await import('./api-action.js')).apiAction(api, path, o),
  );
}
