import { ServerPaging } from '../paging/server-paging.js';
import type { HttpClient } from '../http/client.js';
import { StreamstatClient } from '../sources/streamstat/client.js';
import { usersMeasurement, type UniquesPeriod } from '../sources/streamstat/measurements.js';
import { readViews } from '../sources/streamstat/read.js';
import { uniquesStepMs } from '../sources/streamstat/settings.js';
import { StreamstatShape } from '../sources/streamstat/shape.js';
import type { ProviderRead } from './provider-read.js';
import { clientOptions, type VerifyPlan } from './plan.js';

/** The job key of a grouping's uniques of one period: `streamstat/acme/streams/users_hourly`. */
function uniquesJobKey(account: string, grouping: string, period: UniquesPeriod): string {
  return `streamstat/${account}/${grouping}/${usersMeasurement(period, 'total').replace(/^cdn_/, '')}`;
}

/**
 * Unique users are not additive: each configured period (hourly, daily) is read from the provider in buckets of that
 * period, as its jobs read them (one call per account and grouping for the whole range, whichever shape the service
 * answers), and compared bucket by bucket ('last'). A period longer than the plan's window (a day of uniques while
 * verifying hours) is left out: its bucket is not inside the range.
 */
export async function readUniques(
  http: HttpClient,
  plan: VerifyPlan,
  paging = new ServerPaging(),
): Promise<ProviderRead[]> {
  const s = plan.streamstat;
  if (!s) return [];
  const client = new StreamstatClient(http, clientOptions(plan));
  const shape = new StreamstatShape();
  const reads: ProviderRead[] = [];
  for (const period of s.uniques) {
    const windowMs = uniquesStepMs(period);
    if (windowMs > plan.windowMs) continue;
    for (const account of plan.accounts) {
      for (const grouping of s.allGroupings) {
        const series = { kind: 'users' as const, period };
        const read = {
          http,
          client,
          account,
          grouping,
          granularity: period,
          series,
          pageSize: plan.pageSize,
          shape,
          paging,
        };
        const points = await readViews(read, { from: plan.from, to: plan.to });
        reads.push({
          api: 'streamstat',
          aggregate: 'last',
          windowMs,
          jobs: () => [uniquesJobKey(account, grouping, period)],
          points,
        });
      }
    }
  }
  return reads;
}
