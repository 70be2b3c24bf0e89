import { z } from 'zod';
import { perApi, type ApiDescriptor } from '../spec/apis.js';
import { MINUTE } from '../time.js';
import { duration, durationText } from './duration.js';
import { httpUrl, listenHost } from './fields.js';

/**
 * The collector's configuration: the one source of truth for validation, defaults and the reference in
 * docs/configuration.md (generated from the `.describe()` texts). Unknown keys are errors (`.strict()`), so a typo never
 * silently falls back to a default.
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

const GROUPINGS_STATISTIC = [
  'total', 'customs', 'referrers', 'codes', 'regions', 'browsers', 'platforms', 'resources', 'hosts', 'countries', 'accounts',
] as const;
const GROUPINGS_STREAMSTAT = ['total', 'streams', 'accounts', 'stream-types', 'browsers', 'platforms'] as const;
const STREAMSTAT_GRANULARITIES = ['PT1M', 'PT5M', 'PT15M', 'PT1H', 'P1D'] as const;

/** Level 1 already shrinks line protocol ~5×, for a third of level 6's CPU; 0 suits a server on the same host. */
const gzipLevel = (byDefault: number) =>
  z.number().int().min(0).max(9).default(byDefault).describe('gzip level (1–9) of write requests; 0 sends them uncompressed');

/** A response body cap in bytes: at least 1 KiB, so that an ordinary error body always fits. */
const bodyBytes = z.number().int().min(1024);

const cron = z.string().min(1).describe('node-cron expression of the live schedule (with seconds field optional)');

export const configSchema = z
  .object({
    api: z
      .object({
        baseUrl: httpUrl.describe('base URL of the provider API (env CDN_BASE_URL)'),
        token: z.string().min(1).describe('API token (env CDN_TOKEN); never logged'),
        tokenPlacement: z.enum(['header', 'query']).default('header').describe('statistics APIs: token in header or cdnauthtoken query'),
        timeout: duration
          // Node timers fire after 1 ms when given more than 2^31 − 1 ms, so a longer deadline would time out every call.
          .refine((ms) => ms <= 2 ** 31 - 1, 'must be at most 24 days (a Node timer limit)')
          .default('30s')
          .describe('deadline of one HTTP request'),
        language: z.enum(['en', 'ru']).default('en').describe('language of names in statistics results'),
        // A server's Retry-After of days (or a far-future date) would otherwise stop that API until restart.
        maxRetryAfter: duration
          .default('5m')
          .describe('longest Retry-After honoured; a longer one is cut to this (and logged)'),
        maxBodyBytes: bodyBytes
          .default(32 * 1024 * 1024)
          .describe('largest response body read, in bytes (default 32 MiB); a larger one fails the call, never buffered whole'),
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
      .describe('the provider API and its token'),
    accounts: z.array(z.string().min(1).regex(/^\S(.*\S)?$/s, 'must not be blank or start or end with spaces')).min(1).describe('accounts this instance collects (split accounts across instances to scale out)'),
    quotas: z
      .object(perApi((_, descriptor) => quotaOf(descriptor)))
      .strict()
      .default({})
      .describe('per token: the limiter never exceeds them in any sliding window'),
    jobs: z
      .object({
        metrics: z
          .object({
            enabled: z.boolean().default(true).describe('collect cdn_metrics (and cdn_metrics_resource)'),
            window: duration.default('10m').describe('window length, 1–10 minutes'),
            delay: duration.default('2m').describe('wait after a window closes before reading it'),
            byResource: z.boolean().default(true).describe('also collect the per-resource breakdown'),
            metrics: z.array(z.string()).default([]).describe('metric names to request; empty = all'),
            schedule: cron.default('*/1 * * * *'),
          })
          .strict()
          .default({})
          .describe('short-period traffic metrics (/app/metrics/v1), one call per window'),
        statistic: z
          .object({
            enabled: z.boolean().default(true).describe('collect cdn_traffic'),
            granularity: z.string().default('PT5M').describe('bucket size (ISO 8601, one component, e.g. PT5M, PT1H)'),
            lag: duration.default('1h').describe('statistics are final this long after a bucket ends (spec: up to 1 h)'),
            span: duration.default('1d').describe('widest time span one /times call covers'),
            groupings: z
              .array(z.enum(GROUPINGS_STATISTIC))
              .min(1)
              .default(['total', 'resources', 'countries', 'codes'])
              .describe('groupings to collect; each costs calls'),
            provisional: z
              .boolean()
              .default(false)
              .describe('also read closed but not yet final buckets early (fresher, still growing); re-read once final'),
            schedule: cron.default('*/5 * * * *'),
          })
          .strict()
          .default({})
          .describe('traffic statistics v3 (/app/statistic/v3/times…)'),
        streamstat: z
          .object({
            enabled: z.boolean().default(true).describe('collect cdn_views'),
            granularity: z.enum(STREAMSTAT_GRANULARITIES).default('PT5M').describe('bucket size'),
            lag: duration.default('5m').describe('stream views are read this long after a bucket ends'),
            span: duration.default('6h').describe('widest time span one call covers'),
            groupings: z
              .array(z.enum(GROUPINGS_STREAMSTAT))
              .min(1)
              .default(['total', 'streams', 'stream-types'])
              .describe('groupings to collect; each costs calls'),
            schedule: cron.default('*/1 * * * *'),
          })
          .strict()
          .default({})
          .describe('stream view statistics v2 (/app/streamstat/v2)'),
        dvr: z
          .object({
            enabled: z.boolean().default(true).describe('collect cdn_dvr and cdn_dvr_range'),
            interval: duration.default('1m').describe('snapshot interval'),
            streams: z
              .array(
                z
                  .object({
                    account: z.string().min(1).describe('account of the stream'),
                    stream: z.string().min(1).describe('stream name, e.g. live/main'),
                  })
                  .strict(),
              )
              .default([])
              .describe('streams whose DVR state is snapshotted'),
            schedule: cron.default('*/1 * * * *'),
          })
          .strict()
          .default({})
          .describe('DVR state snapshots (/app/dvr-net/v1)'),
      })
      .strict()
      .default({})
      .describe('what to collect and when'),
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
              .describe('line-protocol backslashes: verbatim for InfluxDB 2.x/1.8, escaped for VictoriaMetrics and InfluxDB 3'),
            gzipLevel: gzipLevel(1),
          })
          .strict(),
        z
          .object({
            type: z.literal('influx-v1').describe('InfluxDB 1.x /write'),
            url: httpUrl.describe('env INFLUX_URL'),
            database: z.string().min(1).describe('env INFLUX_DATABASE'),
            retentionPolicy: z.string().optional().describe('env INFLUX_RETENTION_POLICY; default: the database default'),
            username: z.string().optional().describe('env INFLUX_USERNAME'),
            password: z.string().optional().describe('env INFLUX_PASSWORD; never logged'),
            gzipLevel: gzipLevel(0),
          })
          .strict(),
        z.object({ type: z.literal('file').describe('line protocol to a file (tests, piping)'), path: z.string().min(1).describe('line-protocol file, or - for stdout') }).strict(),
      ])
      .describe('where points go'),
    output: z
      .object({
        // The batch is held in memory: the bound is what keeps memory bounded.
        batchSize: z.number().int().positive().max(100_000).default(5000).describe('lines per write request'),
        deadLetterPath: z.string().default('./state/dead-letters.jsonl').describe('permanently rejected lines'),
      })
      .strict()
      .default({})
      .describe('how points are written'),
    state: z
      .object({
        dir: z.string().min(1).default('./state').describe('checkpoint directory (keep it on a volume)'),
        horizon: duration.default('7d').describe("gaps older than this are not backfilled automatically; at least each job's lag plus one window"),
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
      .object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info').describe('JSON log level (stderr)') })
      .strict()
      .default({})
      .describe('logging'),
    http: z
      .object({
        port: z.number().int().min(0).max(65535).optional().describe('health/metrics listener port; off when unset'),
        host: listenHost
          .default('127.0.0.1')
          .describe('listener address; containers set 0.0.0.0 so their health checks reach it'),
        maxLag: duration.default('2h').describe('/healthz answers 503 when a job lags more than this'),
        jobMaxLag: z
          .record(z.string().min(1), duration)
          .default({})
          .describe(
            'per-job lag limits replacing maxLag, by job key (e.g. statistic/acme/countries: 3h — statistics are read an hour late by design)',
          ),
      })
      .strict()
      .default({})
      .describe('the /healthz and /metrics listener'),
  })
  .strict();

export type CollectorConfig = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export { GROUPINGS_STATISTIC, GROUPINGS_STREAMSTAT };
