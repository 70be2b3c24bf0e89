/**
 * Quota efficiency: a backfill of every job over 7 simulated days against the simulator, with every quota period
 * scaled from 1 minute to 2 s (same calls per period as the spec; metrics 120, statistic 5, streamstat 30, dvr 60).
 * Reports, per API, the calls planned (the least calls of planBackfill) and made (what the simulator admitted; paging may add
 * calls), the 429s (must be 0), and for the binding API — the one whose quota needs longest — wall time ÷ (calls ÷
 * quota rate). Target ≤ 1.05.
 *
 * Run: node bench/run.js quota   (or --quick: 1 day)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBackfill } from '../src/collector/backfill.js';
import { planBackfill } from '../src/plan/planner.js';
import { API_NAMES, type ApiName } from '../src/spec/apis.js';
import { scaledQuotas } from '../src/sim/quota.js';
import { maxInSlidingWindow } from '../src/sim/stats.js';
import { DAY, HOUR } from '../src/time.js';
import { runtimeFor } from '../test/helpers/collector.js';
import { configForProcess, startSimProcess } from './lib/sim-process.js';
import { quick, report, round, target } from './lib/results.js';

const PERIOD_MS = Number(process.env.BENCH_QUOTA_PERIOD_MS ?? 2000);
const DAYS = Number(process.env.BENCH_DAYS ?? (quick() ? 1 : 7));

const quotas = scaledQuotas(PERIOD_MS);

interface ApiFigures {
  planned: number;
  made: number;
  status429: number;
  maxInWindow: number;
  quota: string;
  idealMs: number;
}

function histogram(times: readonly number[], bucketMs: number): number[] {
  const counts: number[] = [];
  for (const t of times) {
    const i = Math.floor((t - times[0]!) / bucketMs);
    for (let k = counts.length; k <= i; k++) counts.push(0);
    counts[i]!++;
  }
  return counts;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-quota-'));
const sim = await startSimProcess({ quotas });
const rt = await runtimeFor(configForProcess(sim, quotas, { type: 'file', path: join(dir, 'points.lp') }));
try {
  // Whole hours, old enough that statistics are final (lag 1 h).
  const to = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
  const range = { from: to - DAYS * DAY, to };
  const plan = planBackfill(rt.collector, range);
  const started = performance.now();
  const results = await runBackfill(rt.collector, plan);
  const wallMs = performance.now() - started;
  const failed = results.filter((r) => r.error);
  if (failed.length > 0) throw new Error(`backfill failed: ${JSON.stringify(failed)}`);

  const stats = await sim.stats();
  const perApi: Partial<Record<ApiName, ApiFigures>> = {};
  for (const api of API_NAMES.filter((a) => plan.calls[a])) {
    const s = stats.apis[api];
    const rule = quotas[api];
    const made = s.admittedAt.length;
    perApi[api] = {
      planned: plan.calls[api] ?? 0,
      made,
      status429: s.byStatus['429'] ?? 0,
      maxInWindow: maxInSlidingWindow(s.admittedAt, rule.periodMs),
      quota: `${rule.calls}/${rule.periodMs}ms`,
      idealMs: Math.round((made / rule.calls) * rule.periodMs),
    };
  }
  const entries = Object.entries(perApi) as Array<[ApiName, ApiFigures]>;
  const [binding, bound] = entries.reduce((a, b) => (b[1].idealMs > a[1].idealMs ? b : a));
  const efficiency = wallMs / bound.idealMs;
  const extraCalls = entries.reduce((n, [, a]) => n + a.made - a.planned, 0);
  const rejections = entries.reduce((n, [, a]) => n + a.status429, 0);
  const overQuota = entries.filter(([api, a]) => a.maxInWindow > quotas[api].calls);

  console.log(`quota efficiency: backfill of ${DAYS} day(s), ${plan.spans} spans, quota periods ${PERIOD_MS} ms`);
  for (const [api, a] of entries) {
    console.log(`  ${api.padEnd(10)} planned ${a.planned}, made ${a.made} (paging +${a.made - a.planned}), 429s ${a.status429}, max in window ${a.maxInWindow}, ideal ${(a.idealMs / 1000).toFixed(1)} s`);
  }
  console.log(`  wall ${(wallMs / 1000).toFixed(1)} s; binding API ${binding}`);
  // Calls of the binding API per quarter second: shows whether the quota or something else paced them.
  if (process.env.BENCH_DIAG) console.log(`  ${binding} calls per 250 ms: ${histogram(stats.apis[binding].admittedAt, 250).join(' ')}`);
  report(
    'quota',
    { days: DAYS, periodMs: PERIOD_MS, spans: plan.spans, wallMs: Math.round(wallMs), binding, efficiency: round(efficiency), perApi },
    [
      target(`wall ÷ (calls ÷ rate) of ${binding}`, efficiency, 'max', 1.05),
      target('429 responses', rejections, 'max', 0),
      target('calls beyond plan (paging)', extraCalls, 'max', 0),
      target('APIs over quota in some window', overQuota.length, 'max', 0),
    ],
  );
} finally {
  await rt.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
