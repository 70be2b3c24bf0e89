import { join } from 'node:path';
import { z } from 'zod';
import { perApi, type ApiDescriptor } from '../spec/apis.js';
import { DEFAULT_LOGIN_BODY, LOGIN_BODY_FORMATS } from '../spec/login.js';
import { MINUTE } from '../time.js';
import { DEFAULT_GZIP_MIN_BYTES } from '../sink/types.js';
import { SETTINGS_SCHEMAS } from '../sources/index.js';
import * as verify from '../verify/settings.js';
import { duration, durationText } from './duration.js';
import { httpUrl, listenHost } from './fields.js';

/**
 * The collector's configuration: the one source of truth for validation, defaults and the reference in
 * docs/configuration.md (generated from the `.describe()` texts). Unknown keys are errors (`.strict()`), so a typo
 * never
 * silently falls back to a default. Each source owns its `jobs.<api>` section (src/sources/<api>/settings.ts); the
 * sources' list (src/sources/index.ts) composes them.
 */
const quota = z
  .object({
    // A bound far above any real quota: 1e20 would pass as an integer and break the limiter's arithmetic later.
    calls: z.number().int().positive().max(100_000).describe('calls allowed per period'),
    period: duration.describe('length of the sliding quota window'),
  })
  .strict();

/** An API's quota with the descriptor's default, and whether the spec publishes it or the figure is ours. */
function quotaOf({ title, quota: { calls, periodMs, published } }: ApiDescriptor) {
  const rate = `${calls}${published ? ' calls' : ''}/${periodMs === MINUTE ? 'min' : durationText(periodMs)}`;
  return quota
    .default({ calls, period: durationText(periodMs) })
    .describe(published ? `${title}: ${rate} per spec` : `${title} quota (not published; default ${rate})`);
}

/** Level 1 already shrinks line protocol ~5×, for a third of level 6's CPU; 0 suits a server on the same host. */
const gzipLevel = (byDefault: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(9)
    .default(byDefault)
    .describe('gzip level (1–9) of write requests; 0 sends them uncompressed');
const gzipMinBytes = z
  .number()
  .int()
  .min(0)
  .default(DEFAULT_GZIP_MIN_BYTES)
  .describe(
    'write bodies smaller than this many bytes go uncompressed (a daemon pass writes a few KB: gzip costs more than it saves)',
  );

/** The dead-letter file's name in state.dir when output.deadLetterPath is unset. */
const DEAD_LETTER_FILE = 'dead-letters.jsonl';

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
      code: z.ZodIssueCode.custom,
      path: [given[1] ?? 'token'],
      message: `exactly one of api.token (CDN_TOKEN), api.tokenFile (CDN_TOKEN_FILE), api.username (CDN_USERNAME) must be set; ${found}`,
    });
    return;
  }
  const passwords = (['password', 'passwordFile'] as const).filter((k) => api[k] !== undefined);
  if (api.username !== undefined && passwords.length !== 1) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: [passwords[1] ?? 'password'],
      message: `a login needs exactly one of api.password (CDN_PASSWORD), api.passwordFile (CDN_PASSWORD_FILE); ${passwords.length === 0 ? 'none is set' : 'both are set'}`,
    });
  } else if (api.username === undefined && passwords.length > 0) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: [passwords[0]!],
      message: 'is only used by the login: set api.username too',
    });
  }
}

export const configSchema = z
  .object({
    api: z
      .object({
        baseUrl: httpUrl.describe('base URL of the provider API (env CDN_BASE_URL)'),
        token: z
          .string()
          .min(1)
          .optional()
          .describe('a static API token (env CDN_TOKEN); never logged. One of token, tokenFile, username'),
        tokenFile: z
          .string()
          .min(1)
          .optional()
          .describe(
            'file whose first line is the token (env CDN_TOKEN_FILE), re-read when it changes and when a call is refused: for secret managers and sidecars',
          ),
        username: z
          .string()
          .min(1)
          .optional()
          .describe(
            'account user name for the login POST {baseUrl}/app/oauth/v1/token/ (env CDN_USERNAME): tokens are fetched and renewed before they expire',
          ),
        password: z
          .string()
          .min(1)
          .optional()
          .describe('login password (env CDN_PASSWORD; prefer the env or passwordFile to the file); never logged'),
        passwordFile: z
          .string()
          .min(1)
          .optional()
          .describe('file whose first line is the login password (env CDN_PASSWORD_FILE)'),
        loginBody: z
          .enum(LOGIN_BODY_FORMATS)
          .default(DEFAULT_LOGIN_BODY)
          .describe(
            "how the login sends the credentials: a form (application/x-www-form-urlencoded, as the vendor's OAuth page and every public client send it; the service answers a JSON body 400) or a JSON object",
          ),
        renewAfter: z
          .number()
          .min(0.1)
          .max(0.95)
          .default(0.8)
          .describe('a login token is renewed once this fraction of its lifetime has passed'),
        tokenPlacement: z
          .enum(['header', 'query'])
          .default('header')
          .describe('statistics APIs: token in header or cdnauthtoken query'),
        timeout: duration
          // Node timers fire after 1 ms when given more than 2^31 − 1 ms, so a longer deadline would time out every
          // call.
          .refine((ms) => ms <= 2 ** 31 - 1, 'must be at most 24 days (a Node timer limit)')
          .default('30s')
          .describe('deadline of one HTTP request'),
        language: z
          .enum(['en', 'ru'])
          .optional()
          .describe(
            'language of the statistics APIs; unset: not sent, the service default (English), except that the groupings with names (regions, countries) always send one (en when unset), so their name tags never change with a server default',
          ),
        pageSize: z
          .number()
          .int()
          .min(1)
          .default(1000)
          .describe(
            'rows (or rows per bucket) asked for per call of the paged statistics endpoints (`limit`); the maximum is not shown, a server that caps lower is paged through',
          ),
        serverMaxLimit: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(
            'the largest `limit` the statistics servers honour, when the operator knows it (the spec does not show it); unset: unknown, so a short page as large as any the server returned is checked with one more call (it may be a capped one). Set: `limit` never exceeds it, a page shorter than min(pageSize, serverMaxLimit) ends the read without that call, and a page of exactly serverMaxLimit rows is still followed by the next page',
          ),
        // A server's Retry-After of days (or a far-future date) would otherwise stop that API until restart.
        maxRetryAfter: duration
          .default('5m')
          .describe('longest Retry-After honoured; a longer one is cut to this (and logged)'),
        maxBodyBytes: bodyBytes
          .default(32 * 1024 * 1024)
          .describe(
            'largest response body read, in bytes (default 32 MiB); a larger one fails the call, never buffered whole',
          ),
        maxBodyBytesPerApi: z
          .object(perApi((_, { title }) => bodyBytes.optional().describe(title)))
          .strict()
          .default({})
          .describe('per-API overrides of maxBodyBytes'),
        maxPages: z
          .number()
          .int()
          .positive()
          .default(200)
          .describe('most pages one paged read may take; a span that needs more fails naming the endpoint'),
      })
      .strict()
      .superRefine(checkCredentials)
      .describe('the provider API and how to authenticate: a static token, a token file or a login'),
    accounts: z
      .union([
        z.literal('auto'),
        z
          .array(
            z
              .string()
              .min(1)
              .regex(/^\S(.*\S)?$/s, 'must not be blank or start or end with spaces'),
          )
          .min(1),
      ])
      .describe(
        "accounts this instance collects (split accounts across instances to scale out), or auto: the token's active accounts, read at start and every jobs.statistic.discovery from GET /app/inventory/v1/accounts/ (outside every quota), or where that answers 404 from the statistics /accounts grouping (accounts with traffic in the last day, on the statistic quota)",
      ),
    quotas: z
      .object(perApi((_, descriptor) => quotaOf(descriptor)))
      .strict()
      .default({})
      .describe('per token: the limiter never exceeds them in any sliding window'),
    jobs: z.object(SETTINGS_SCHEMAS).strict().default({}).describe('what to collect and when'),
    sink: z
      .discriminatedUnion('type', [
        z
          .object({
            type: z.literal('influx-v2').describe('InfluxDB 2.x/3, VictoriaMetrics and other /api/v2/write servers'),
            url: httpUrl.describe('env INFLUX_URL'),
            token: z.string().min(1).describe('env INFLUX_TOKEN; never logged'),
            org: z.string().min(1).describe('env INFLUX_ORG'),
            bucket: z.string().min(1).describe('env INFLUX_BUCKET'),
            backslashes: z
              .enum(['verbatim', 'escaped'])
              .default('verbatim')
              .describe(
                'line-protocol backslashes: verbatim for InfluxDB 2.x/1.8, escaped for VictoriaMetrics and InfluxDB 3',
              ),
            gzipLevel: gzipLevel(1),
            gzipMinBytes,
          })
          .strict(),
        z
          .object({
            type: z.literal('influx-v1').describe('InfluxDB 1.x /write'),
            url: httpUrl.describe('env INFLUX_URL'),
            database: z.string().min(1).describe('env INFLUX_DATABASE'),
            retentionPolicy: z
              .string()
              .optional()
              .describe('env INFLUX_RETENTION_POLICY; default: the database default'),
            username: z.string().optional().describe('env INFLUX_USERNAME'),
            password: z.string().optional().describe('env INFLUX_PASSWORD; never logged'),
            gzipLevel: gzipLevel(0),
            gzipMinBytes,
          })
          .strict(),
        z
          .object({
            type: z.literal('file').describe('line protocol to a file (tests, piping)'),
            path: z.string().min(1).describe('line-protocol file, or - for stdout'),
          })
          .strict(),
      ])
      .describe('where points go'),
    output: z
      .object({
        // The batch is held in memory: the bound is what keeps memory bounded.
        batchSize: z.number().int().positive().max(100_000).default(5000).describe('lines per write request'),
        deadLetterPath: z
          .string()
          .min(1)
          .optional()
          .describe(
            `permanently rejected lines; unset: ${DEAD_LETTER_FILE} in state.dir. A relative path is relative to the working directory, as state.dir is`,
          ),
        overwrites: z
          .boolean()
          .default(true)
          .describe(
            'whether the database replaces a point of the same series and time (InfluxDB); false for VictoriaMetrics, which keeps every sample: then nothing that rewrites a point with a new value is written (docs/deploy.md)',
          ),
      })
      .strict()
      .default({})
      .describe('how points are written'),
    state: z
      .object({
        dir: z.string().min(1).default('./state').describe('checkpoint directory (keep it on a volume)'),
        horizon: duration
          .default('7d')
          .describe("gaps older than this are not backfilled automatically; at least each job's lag plus one window"),
        initialLookback: duration.default('1h').describe('how far back a job with no checkpoint starts'),
      })
      .strict()
      .default({})
      .describe('checkpoints: where collection resumes after a restart'),
    instance: z
      .string()
      .min(1)
      .optional()
      .describe('name of this collector in its cdn_collector points (default: the host name); unique per shard'),
    log: z
      .object({
        level: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
          .default('info')
          .describe('log level (stderr); flag --log-level'),
        format: z
          .enum(['json', 'pretty'])
          .optional()
          .describe('json lines or pretty text; unset: pretty on a terminal, json otherwise; flag --log-format'),
        progressEvery: duration
          .default('15s')
          .describe('while calls wait for quota: a progress line this often (on a terminal: a progress bar instead)'),
      })
      .strict()
      .default({})
      .describe('logging'),
    http: z
      .object({
        port: z
          .number()
          .int()
          .min(0)
          .max(65535)
          .optional()
          .describe('health/metrics listener port; off when unset; flag --listen host:port'),
        host: listenHost
          .default('127.0.0.1')
          .describe(
            'listener address; containers set 0.0.0.0 so their health checks reach it; flag --listen host:port',
          ),
        maxLag: duration
          .default('2h')
          .describe(
            '/healthz answers 503 when a job lags more than this beyond the lag it has by design (its delay plus one window: a daily job is a day and its lag behind when caught up)',
          ),
        apiFailingAfter: duration
          .default('5m')
          .describe(
            '/healthz answers 503 when every call of an API failed for this long (401/403 after a token renewal: at once)',
          ),
        sinkFailingAfter: duration
          .default('2m')
          .describe('/healthz answers 503 when every write to the sink failed for this long'),
        jobMaxLag: z
          .record(z.string().min(1), duration)
          .default({})
          .describe(
            'per-job lag limits replacing maxLag, by job key, taken as written (the lag the job has by design included), e.g. statistic/acme/countries: 3h',
          ),
      })
      .strict()
      .default({})
      .describe('the /healthz and /metrics listener'),
    verify: verify.schema,
  })
  .strict();

type ParsedConfig = z.output<typeof configSchema>;

/** The configuration the collector runs on: the schema's output with the defaults that follow other fields. */
export type CollectorConfig = Omit<ParsedConfig, 'output'> & {
  output: ParsedConfig['output'] & { deadLetterPath: string };
};

/** Fills the defaults that depend on other fields: the dead letters go beside the checkpoints unless placed. */
export function withDependentDefaults(parsed: ParsedConfig): CollectorConfig {
  const deadLetterPath = parsed.output.deadLetterPath ?? join(parsed.state.dir, DEAD_LETTER_FILE);
  return { ...parsed, output: { ...parsed.output, deadLetterPath } };
}
export type ConfigInput = z.input<typeof configSchema>;
