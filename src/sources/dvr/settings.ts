import { z } from 'zod';
import { duration } from '../../config/fields/duration.js';
import { cronSchedule } from '../../config/fields/fields.js';
import { ParameterError } from '../../errors.js';
import { asField, unique } from '../common/settings.js';
import { dvrStreamPath } from './path.js';

/** `jobs.dvr` (see src/sources/common/settings.ts for what a source's settings module holds). */
export const schema = z
  .object({
    enabled: z.boolean().prefault(true).describe('collect cdn_dvr and cdn_dvr_range'),
    interval: duration.prefault('1m').describe('snapshot interval'),
    streams: z
      .array(
        z
          .object({
            account: z.string().min(1).describe('account of the stream'),
            stream: z.string().min(1).describe('stream name, e.g. live/main'),
          })
          .strict(),
      )
      .prefault([])
      .describe('streams whose DVR state is snapshotted'),
    schedule: cronSchedule.prefault('*/1 * * * *'),
  })
  .strict()
  .prefault({})
  .describe('DVR state snapshots (/app/dvr-net/v1)');

export type DvrSettings = z.output<typeof schema>;

export function check(s: DvrSettings): void {
  if (s.enabled && s.interval % 1000 !== 0) throw new ParameterError('interval', 'must be whole seconds');
  // The path rules the DVR client applies to every call (no `..`, no empty segment), checked before the first one.
  s.streams.forEach((stream, i) => asField(`streams.${i}`, () => dvrStreamPath(stream.account, stream.stream)));
  unique(
    'streams',
    s.streams.map((stream) => `${stream.account} ${stream.stream}`),
  );
}

/** Snapshots read the present: no lag, nothing for the horizon to reach. */
export function reachMs(): number | undefined {
  return undefined;
}
