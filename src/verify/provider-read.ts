import type { Point } from '../points.js';
import type { ApiName } from '../spec/apis.js';

/**
 * What the provider reports for one read: its points (made by the source's own mapping, so measurement names and
 * tags are the collector's) and the job keys that collect them (for repair).
 */
export interface ProviderRead {
  api: ApiName;
  /**
   * What is compared: the additive fields ('sum', summed per window), or the fields counted over their own period
   * ('last', e.g. unique users: per bucket of `windowMs`, never summed across buckets).
   */
  aggregate: 'sum' | 'last';
  /** The window compared: the plan's (day or hour) for sums, the period of the counts for 'last'. */
  windowMs: number;
  /** Keys of the jobs that write these points of `account`: `statistic/acme/countries`. */
  jobs: (account: string) => string[];
  points: Point[];
}
