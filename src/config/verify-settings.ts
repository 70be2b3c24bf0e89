import { z } from 'zod';
import { duration } from './fields/duration.js';
import { cronSchedule, httpUrl } from './fields/fields.js';

/**
 * `verify`: the daemon's reconciliation job. On by default where it can read the database back (a file sink has
 * nothing to read): once a day it compares yesterday's stored sums with the provider's day totals, a handful of calls
 * (statistics: one per account and grouping, plus one for all accounts; stream views likewise), and reports drift on
 * /metrics and in cdn_collector points. Repair is opt-in: it spends quota re-collecting what differs.
 */
export const schema = z
  .object({
    enabled: z
      .boolean()
      .prefault(true)
      .describe('run the reconciliation in the daemon (skipped, with a log line, for a file sink)'),
    schedule: cronSchedule
      .prefault('40 3 * * *')
      .describe(
        'node-cron expression, in UTC: when the daemon verifies (default daily at 03:40, after the last buckets of ' +
          'yesterday are final)',
      ),
    days: z
      .number()
      .int()
      .min(1)
      .max(31)
      .prefault(1)
      .describe('how many whole UTC days before today are verified each run'),
    repair: z
      .boolean()
      .prefault(false)
      .describe('re-collect the windows that drift (costs the calls of collecting them again), then check again'),
    reader: z
      .enum(['auto', 'influxql', 'flux', 'victoriametrics'])
      .prefault('auto')
      .describe(
        'how the database is read back; auto: influx-v1 → InfluxQL, influx-v2 with backslashes: escaped → ' +
          'VictoriaMetrics, other influx-v2 → Flux',
      ),
    giveUpAfter: duration
      .prefault('2m')
      .describe('give up (exit 1) when an API has failed every call for this long; a wait for quota is not a failure'),
    url: httpUrl
      .optional()
      .describe('where to read from when it differs from the sink url (e.g. vmselect of a VictoriaMetrics cluster)'),
  })
  .strict()
  .prefault({})
  .describe('reconciliation: stored sums against the provider totals (`cdn-collector verify` and the daemon job)');

export type VerifySettings = z.output<typeof schema>;
