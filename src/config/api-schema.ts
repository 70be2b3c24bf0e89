import { z } from 'zod';
import { perApi } from '../spec/apis.js';
import { DEFAULT_LOGIN_BODY, LOGIN_BODY_FORMATS } from '../spec/login.js';
import { duration } from './fields/duration.js';
import { apiBaseUrl, apiToken, secretText } from './fields/fields.js';

// The `api` section of the configuration (schema.ts): the provider API, how to authenticate, and the bounds of a call.

/** A response body cap in bytes: at least 1 KiB, so that an ordinary error body always fits. */
const bodyBytes = z.number().int().min(1024);

/** Exactly one way to authenticate, and a login with exactly one password source. */
function checkCredentials(
  api: { token?: string; tokenFile?: string; username?: string; password?: string; passwordFile?: string },
  ctx: z.RefinementCtx,
): void {
  const given = (['token', 'tokenFile', 'username'] as const).filter((k) => api[k] !== undefined);
  if (given.length !== 1) {
    const found = given.length === 0 ? 'none is set' : `${given.map((k) => `api.${k}`).join(' and ')} are set`;
    ctx.addIssue({
      code: 'custom',
      path: [given[1] ?? 'token'],
      message:
        `exactly one of api.token (CDN_TOKEN), api.tokenFile (CDN_TOKEN_FILE), ` +
        `api.username (CDN_USERNAME) must be set; ${found}`,
    });
    return;
  }
  const passwords = (['password', 'passwordFile'] as const).filter((k) => api[k] !== undefined);
  if (api.username !== undefined && passwords.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      path: [passwords[1] ?? 'password'],
      message:
        `a login needs exactly one of api.password (CDN_PASSWORD), api.passwordFile (CDN_PASSWORD_FILE); ` +
        `${passwords.length === 0 ? 'none is set' : 'both are set'}`,
    });
  } else if (api.username === undefined && passwords.length > 0) {
    ctx.addIssue({
      code: 'custom',
      path: [passwords[0]!],
      message: 'is only used by the login: set api.username too',
    });
  }
}

export const apiSchema = z
  .object({
    baseUrl: apiBaseUrl.describe('base URL of the provider API (env CDN_BASE_URL)'),
    token: apiToken
      .optional()
      .describe('a static API token (env CDN_TOKEN); never logged. One of token, tokenFile, username'),
    tokenFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        'file whose first line is the token (env CDN_TOKEN_FILE), re-read when it changes and when a call is ' +
          'refused: for secret managers and sidecars',
      ),
    username: z
      .string()
      .min(1)
      .optional()
      .describe(
        'account user name for the login POST {baseUrl}/app/oauth/v1/token/ (env CDN_USERNAME): ' +
          'tokens are fetched and renewed before they expire',
      ),
    password: secretText()
      .optional()
      .describe('login password (env CDN_PASSWORD; prefer the env or passwordFile to the file); never logged'),
    passwordFile: z
      .string()
      .min(1)
      .optional()
      .describe('file whose first line is the login password (env CDN_PASSWORD_FILE)'),
    loginBody: z
      .enum(LOGIN_BODY_FORMATS)
      .prefault(DEFAULT_LOGIN_BODY)
      .describe(
        'how the login sends the credentials: a form (application/x-www-form-urlencoded, ' +
          "as the vendor's OAuth page and every public client send it; the service answers a JSON body 400) or a " +
          'JSON object',
      ),
    renewAfter: z
      .number()
      .min(0.1)
      .max(0.95)
      .prefault(0.8)
      .describe('a login token is renewed once this fraction of its lifetime has passed'),
    tokenPlacement: z
      .enum(['header', 'query'])
      .prefault('header')
      .describe('statistics APIs: token in header or cdnauthtoken query'),
    timeout: duration
      // Node timers fire after 1 ms when given more than 2^31 − 1 ms, so a longer deadline would time out every
      // call.
      .refine((ms) => ms <= 2 ** 31 - 1, 'must be at most 24 days (a Node timer limit)')
      .prefault('30s')
      .describe('deadline of one HTTP request'),
    language: z
      .enum(['en', 'ru'])
      .optional()
      .describe(
        'language of the statistics APIs; unset: not sent, the service default (English), ' +
          'except that the groupings with names (regions, countries) always send one (en when unset), ' +
          'so their name tags never change with a server default',
      ),
    pageSize: z
      .number()
      .int()
      .min(1)
      .prefault(1000)
      .describe(
        'rows (or rows per bucket) asked for per call of the paged statistics endpoints (`limit`); ' +
          'the maximum is not shown, a server that caps lower is paged through',
      ),
    serverMaxLimit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'the largest `limit` the statistics servers honour, when the operator knows it (the spec does not show it); ' +
          'unset: learnt per API once an answer shows it (a page shorter than the limit asked, then more rows; kept ' +
          'in state/paging.json); until then a short page as large as any the server returned is checked with one ' +
          'more call (it may be a capped one). Set: `limit` never exceeds it, a page shorter than min(pageSize, ' +
          'serverMaxLimit) ends the read without that call, and a page of exactly serverMaxLimit rows is still ' +
          'followed by the next page',
      ),
    // A server's Retry-After of days (or a far-future date) would otherwise stop that API until restart.
    maxRetryAfter: duration
      .prefault('5m')
      .describe('longest Retry-After honoured; a longer one is cut to this (and logged)'),
    shardQuota: z
      .enum(['auto', 'divided', 'whole'])
      .prefault('auto')
      .describe(
        'with --shard i/n, how much of each quota one shard spends. divided: floor(calls / n), for shards that ' +
          'share one login or token (the service counts its calls together); whole: every quota, for shards with a ' +
          'login or token of their own; auto: divided when the shards log in (api.username), whole with a token ' +
          '(one token per shard, as in deploy/k8s)',
      ),
    maxBodyBytes: bodyBytes
      .prefault(32 * 1024 * 1024)
      .describe(
        'largest response body read, in bytes (default 32 MiB); a larger one fails the call, never buffered whole',
      ),
    maxBodyBytesPerApi: z
      .object(perApi((_, { title }) => bodyBytes.optional().describe(title)))
      .strict()
      .prefault({})
      .describe('per-API overrides of maxBodyBytes'),
    maxPages: z
      .number()
      .int()
      .positive()
      .prefault(200)
      .describe('most pages one paged read may take; a span that needs more fails naming the endpoint'),
  })
  .strict()
  // Checked even when another api field is wrong, so that one run lists every problem.
  .superRefine(checkCredentials, { when: ({ value }) => typeof value === 'object' && value !== null })
  .describe('the provider API and how to authenticate: a static token, a token file or a login');
