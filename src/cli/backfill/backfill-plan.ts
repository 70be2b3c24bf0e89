import { formatDuration } from '../../backfill/eta.js';
import type { CollectorConfig } from '../../config/schema.js';
import { estimateDuration } from '../../plan/planner.js';
import { perApi, type ApiName } from '../../spec/apis.js';
import type { BackfillStatus } from '../../backfill/requests.js';
import { counted } from '../../words.js';

// The plan of `backfill --dry-run` as it is printed (text or JSON).

type Plan = BackfillStatus['plan'];

const iso = (ms: number) => new Date(ms).toISOString();

/** The configured quotas, as the planner and the ETA take them. */
export const quotasOf = (config: CollectorConfig) =>
  perApi((api) => ({ calls: config.quotas[api].calls, periodMs: config.quotas[api].period }));

export function printPlan(
  plan: Plan,
  range: { from: number; to: number },
  config: CollectorConfig,
  notes: string[],
  json: boolean,
): void {
  const minimumDurationSec = Math.round(estimateDuration(plan.calls, quotasOf(config)) / 1000);
  const most = plan.callsMost ?? plan.calls;
  const { jobs, calls, pagingMayAdd } = plan;
  const [from, to] = [iso(range.from), iso(range.to)];
  const summary = { from, to, jobs, calls, callsMost: most, pagingMayAdd, minimumDurationSec, notes };
  if (json) return void process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  const size = `${counted(plan.spans, 'span')} in ${counted(plan.jobs.length, 'job')}`;
  const lines = [`Backfill ${summary.from} → ${summary.to}: ${size}`];
  const callsPerApi = Object.entries(calls) as Array<[ApiName, number]>;
  for (const [api, n] of callsPerApi) lines.push(`  ${api}: ${callsText(n, most[api])} calls`);
  if (pagingMayAdd.length > 0) {
    const apis = pagingMayAdd.join(', ');
    lines.push(`  (${apis}: more only where a bucket has more groups than paging saw before: a call a page)`);
  }
  lines.push(
    minimumDurationSec === 0
      ? '  no wait for quota: the calls fit in the configured quotas at once'
      : `  at least ${formatDuration(minimumDurationSec * 1000)} under the configured quotas`,
  );
  for (const note of notes) lines.push(`  note: ${note}`);
  const none = '  0 spans: every window in the range is collected already, or cut by the notes above';
  if (plan.spans === 0) lines.push(none);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `576`, or `28–56` when the run lands between the least and the most calls. */
const callsText = (least: number, most = least) => (most === least ? `${least}` : `${least}–${most}`);
