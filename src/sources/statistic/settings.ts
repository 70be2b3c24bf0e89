import { z } from 'zod';
import { duration } from '../../config/fields/duration.js';
import { cronSchedule } from '../../config/fields/fields.js';
import { ParameterError } from '../../errors.js';
import { statisticRule } from '../../plan/windows.js';
import { fixedLengthMs, parseGranularity } from '../../spec/granularity.js';
import { STATISTIC_GROUPINGS, type StatisticGrouping } from '../../spec/statistic.js';
import { MINUTE } from '../../time.js';
import { asField, unique } from '../common/settings.js';

/** The groupings the config accepts: the total plus the spec's grouping endpoints (`paths` needs `paths.hosts`). */
const COLLECTED_GROUPINGS = ['total', ...STATISTIC_GROUPINGS] as ['total', ...StatisticGrouping[]];

/** `jobs.statistic` (see src/sources/common/settings.ts for what a source's settings module holds). */
export const schema = z
  .object({
    enabled: z.boolean().prefault(true).describe('collect cdn_traffic (per account) and cdn_traffic_by_<grouping>'),
    granularity: z.string().prefault('PT5M').describe('bucket size (ISO 8601, one component, e.g. PT5M, PT1H)'),
    lag: duration.prefault('1h').describe('statistics are final this long after a bucket ends (spec: up to 1 h)'),
    span: duration
      .prefault('31d')
      .describe(
        'widest time span one /times call covers: a cap (lower it for smaller answers); below it a call covers as ' +
          'many buckets as one page (/times) or the answer size budget (grouped reads) allows',
      ),
    groupings: z
      .array(z.enum(COLLECTED_GROUPINGS))
      .min(1)
      .prefault(['total', 'resources', 'countries', 'codes'])
      .describe(
        'groupings to collect; each costs calls. total and accounts are the same points (cdn_traffic); with two or ' +
          'more accounts (or accounts: auto) they are read for all accounts at once from /times/accounts',
      ),
    paths: z
      .object({
        hosts: z
          .record(z.string().min(1), z.array(z.string().min(1)).min(1))
          .prefault({})
          .describe(
            'per account, the hosts whose paths are collected (spec: /paths requires account and host), e.g. { acme: ' +
              '[cdn.acme.example] }',
          ),
      })
      .strict()
      .prefault({})
      .describe('grouping paths: one job per account and host'),
    discovery: duration
      .prefault('1h')
      .describe(
        "with accounts: auto, how often the token's accounts are read again (from 1 min; one inventory call, or " +
          'where the inventory is missing a statistic call per 100 accounts)',
      ),
    provisional: z
      .boolean()
      .prefault(false)
      .describe('also read closed but not yet final buckets early (fresher, still growing); re-read once final'),
    schedule: cronSchedule.prefault('*/5 * * * *'),
  })
  .strict()
  .prefault({})
  .describe('traffic statistics v3 (/app/statistic/v3/times…)');

export type StatisticSettings = z.output<typeof schema>;

/** The bucket length of a checked granularity (check refuses any other). */
export function stepMs(s: StatisticSettings): number {
  const g = parseGranularity(s.granularity);
  const ms = g && fixedLengthMs(g);
  if (ms === undefined) {
    throw new ParameterError(
      'granularity',
      `"${s.granularity}" must be a fixed-length ISO 8601 duration with one component (e.g. PT5M, PT1H, P1D)`,
    );
  }
  return ms;
}

export function check(s: StatisticSettings): void {
  const gMs = stepMs(s);
  asField('granularity', () => statisticRule(gMs, s.lag, gMs));
  asField('span', () => statisticRule(gMs, s.lag, s.span));
  unique('groupings', s.groupings);
  if (s.discovery < MINUTE)
    throw new ParameterError(
      'discovery',
      'must be at least 1 min (each read spends one of the 5 statistic calls a minute)',
    );
  for (const [account, hosts] of Object.entries(s.paths.hosts)) unique(`paths.hosts.${account}`, hosts);
  if (s.groupings.includes('paths') && Object.keys(s.paths.hosts).length === 0) {
    throw new ParameterError(
      'paths.hosts',
      'grouping paths needs the hosts to read per account (the spec: /paths requires host)',
    );
  }
}

/** A bucket is read once final: `lag` after it ends. */
export function reachMs(s: StatisticSettings): number | undefined {
  return s.enabled ? s.lag + stepMs(s) : undefined;
}
