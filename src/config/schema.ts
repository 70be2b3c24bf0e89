import { join } from 'node:path';
import { DEFAULT_STATE_DIR } from './state-dir.js';
import { z } from 'zod';
import { perApi, type ApiDescriptor } from '../spec/apis.js';
import { MINUTE } from '../time.js';
import { DEFAULT_GZIP_MIN_BYTES, DEFAULT_WRITE_RETRY_MS } from '../sink/types.js';
import { SETTINGS_SCHEMAS } from '../sources/index.js';
import * as verify from './verify-settings.js';
import { duration, durationText } from './fields/duration.js';
import { httpUrl, listenHost, secretText } from './fields/fields.js';
import { apiSchema } from './api-schema.js';

/**
 * The collector's configuration: the one source of truth for validation, defaults and the reference in
 * docs/configuration.md (generated from the `.describe()` texts). Unknown keys are errors (`.strict()`), so a typo
 * never silently falls back to a default. The `api` section is api-schema.ts; each source owns its `jobs.<api>`
 * section (src/sources/<api>/settings.ts), and the sources' list (src/sources/index.ts) composes them.
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
    .prefault({ calls, period: durationText(periodMs) })
    .describe(published ? `${title}: ${rate} per spec` : `${title} quota (not published; default ${rate})`);
}

/** Level 1 already shrinks line protocol ~5×, for a third of level 6's CPU; 0 suits a server on the same host. */
const gzipLevel = (byDefault: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(9)
    .prefault(byDefault)
    .describe('gzip level (1–9) of write requests; 0 sends them uncompressed');
const gzipMinBytes = z
  .number()
  .int()
  .min(0)
  .prefault(DEFAULT_GZIP_MIN_BYTES)
  .describe(
    'write bodies smaller than this many bytes go uncompressed (a daemon pass writes a few KB: gzip costs more than ' +
      'it saves)',
  );

/** The dead-letter file's name in state.dir when output.deadLetterPath is unset. */
const DEAD_LETTER_FILE = 'dead-letters.jsonl';

export const configSchema = z
  .object({
    api: apiSchema,
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
          .min(1, 'must list at least one account, or be auto'),
      ])
      .describe(
        "accounts this instance collects (split accounts across instances to scale out), or auto: the token's active " +
          'accounts, read at start and every jobs.statistic.discovery from GET /app/inventory/v1/accounts/ (outside ' +
          'every quota), or where that answers 404 from the statistics /accounts grouping (accounts with traffic in ' +
          'the last day, on the statistic quota)',
      ),
    quotas: z
      .object(perApi((_, descriptor) => quotaOf(descriptor)))
      .strict()
      .prefault({})
      .describe('per token: the limiter never exceeds them in any sliding window'),
    jobs: z.object(SETTINGS_SCHEMAS).strict().prefault({}).describe('what to collect and when'),
    sink: z
      .discriminatedUnion('type', [
        z
          .object({
            type: z.literal('influx-v2').describe('InfluxDB 2.x/3, VictoriaMetrics and other /api/v2/write servers'),
            url: httpUrl.describe('env INFLUX_URL'),
            token: secretText().describe('env INFLUX_TOKEN; never logged'),
            org: z.string().min(1).describe('env INFLUX_ORG'),
            bucket: z.string().min(1).describe('env INFLUX_BUCKET'),
            backslashes: z
              .enum(['verbatim', 'escaped'])
              .prefault('verbatim')
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
            password: secretText(0).optional().describe('env INFLUX_PASSWORD; never logged'),
            gzipLevel: gzipLevel(0),
            gzipMinBytes,
          })
          .strict(),
        z
          .object({
            type: z
              .literal('victoriametrics')
              .describe(
                'VictoriaMetrics (single node or vminsert) through its /api/v2/write: no org, bucket or token; it ' +
                  'keeps every sample, so output.overwrites is false with it',
              ),
            url: httpUrl.describe('env INFLUX_URL, e.g. http://localhost:8428'),
            token: z
              .string()
              .min(1)
              .optional()
              .describe('bearer token of a vmauth or proxy in front of it (env INFLUX_TOKEN); never logged'),
            gzipLevel: gzipLevel(1),
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
        batchSize: z.number().int().positive().max(100_000).prefault(5000).describe('lines per write request'),
        deadLetterPath: z
          .string()
          .min(1)
          .optional()
          .describe(
            `permanently rejected lines; unset: ${DEAD_LETTER_FILE} in state.dir. A relative path is relative to the ` +
              `working directory, as state.dir is`,
          ),
        retryFor: duration
          .prefault(durationText(DEFAULT_WRITE_RETRY_MS))
          .describe(
            'how long a failed write (database down, 5xx, timeout, full disk) is retried, waits included, before ' +
              'the daemon leaves its span to the next pass and a backfill or verify --repair stops naming the cause',
          ),
        overwrites: z
          .boolean()
          .prefault(true)
          .describe(
            'whether the database replaces a point of the same series and time (InfluxDB); false for ' +
              'VictoriaMetrics, which keeps every sample: then nothing that rewrites a point with a new value is ' +
              'written (docs/deploy.md)',
          ),
      })
      .strict()
      .prefault({})
      .describe('how points are written'),
    state: z
      .object({
        dir: z.string().min(1).prefault(DEFAULT_STATE_DIR).describe('checkpoint directory (keep it on a volume)'),
        horizon: duration
          .prefault('7d')
          .describe("gaps older than this are not backfilled automatically; at least each job's lag plus one window"),
        initialLookback: duration
          .prefault('1h')
          .describe("where the daemon's gap filling of a new job starts, before now; raised later, it moves back"),
      })
      .strict()
      .prefault({})
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
          .prefault('info')
          .describe('log level (stderr); flag --log-level'),
        format: z
          .enum(['json', 'pretty'])
          .optional()
          .describe('json lines or pretty text; unset: pretty on a terminal, json otherwise; flag --log-format'),
        progressEvery: duration
          .prefault('15s')
          .describe('while calls wait for quota: a progress line this often (on a terminal: a progress bar instead)'),
      })
      .strict()
      .prefault({})
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
          .prefault('127.0.0.1')
          .describe(
            'listener address; containers set 0.0.0.0 so their health checks reach it; flag --listen host:port',
          ),
        maxLag: duration
          .prefault('2h')
          .describe(
            '/healthz answers 503 when a job lags more than this beyond the lag it has by design (its delay plus one ' +
              'window: a daily job is a day and its lag behind when caught up)',
          ),
        apiFailingAfter: duration
          .prefault('5m')
          .describe(
            '/healthz answers 503 when every call of an API failed for this long ' +
              '(429s are waits, not failures; 401/403 after a token renewal: at once)',
          ),
        sinkFailingAfter: duration
          .prefault('2m')
          .describe('/healthz answers 503 when every write to the sink failed for this long'),
        jobMaxLag: z
          .record(z.string().min(1), duration)
          .prefault({})
          .describe(
            'per-job lag limits replacing maxLag, by job key, taken as written (the lag the job has by design ' +
              'included), e.g. statistic/acme/countries: 3h',
          ),
      })
      .strict()
      .prefault({})
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
  // VictoriaMetrics keeps every sample of a series and time: points rewritten with new values must not be written.
  const overwrites = parsed.sink.type === 'victoriametrics' ? false : parsed.output.overwrites;
  return { ...parsed, output: { ...parsed.output, deadLetterPath, overwrites } };
}
export type ConfigInput = z.input<typeof configSchema>;
