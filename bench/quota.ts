/**
 * Quota efficiency: a backfill of every job over 7 simulated days against the simulator, with every quota period
 * scaled from 1 minute to 2 s (same calls per period as the spec; metrics 120, statistic 5, streamstat 30, dvr 60).
 * Reports, per API, the calls planned (the least calls of planBackfill), made (what the simulator admitted; paging may
 * add calls), the lower bound the API rules allow (bench/lib/quota-bound.ts, independent of the planner) and made ÷
 * bound (target 1.00; ≤ 1.05 for the paged APIs), the 429s (must be 0), and for the binding API — the one whose quota
 * needs longest — wall time ÷ (calls ÷ quota rate), target ≤ 1.05.
 * Then the collector restarts on the same state dir and backfills the week before for statistic and stream views: what
 * paging learnt (state/paging.json) must spare the capped-page check (`restart` figures).
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
import { lowerBound } from './lib/quota-bound.js';
import { quick, report, round, target } from './lib/results.js';

const PERIOD_MS = Number(process.env.BENCH_QUOTA_PERIOD_MS ?? 2000);
const DAYS = Number(process.env.BENCH_DAYS ?? (quick() ? 1 : 7));

const quotas = scaledQuotas(PERIOD_MS);

interface ApiFigures {
  planned: number;
  made: number;
  bound: number;
  madePerBound: number;
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
const config = configForProcess(sim, quotas, { type: 'file', path: join(dir, 'points.lp') });
let rt = await runtimeFor(config);
/** Made ÷ bound an API may reach: paged reads may need the page that checks a page as large as any seen. */
const allowed = (api: ApiName) => (api === 'statistic' || api === 'streamstat' ? 1.05 : 1);
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
  const bound = lowerBound(config, sim.accounts, range, (api) => rt.http.paging.largestPage(api));
  const perApi: Partial<Record<ApiName, ApiFigures>> = {};
  for (const api of API_NAMES.filter((a) => plan.calls[a])) {
    const s = stats.apis[api];
    const rule = quotas[api];
    const made = s.admittedAt.length;
    perApi[api] = {
      planned: plan.calls[api] ?? 0,
      made,
      bound: bound[api] ?? 0,
      madePerBound: round(made / (bound[api] ?? made)),
      status429: s.byStatus['429'] ?? 0,
      maxInWindow: maxInSlidingWindow(s.admittedAt, rule.periodMs),
      quota: `${rule.calls}/${rule.periodMs}ms`,
      idealMs: Math.round((made / rule.calls) * rule.periodMs),
    };
  }
  const entries = Object.entries(perApi) as Array<[ApiName, ApiFigures]>;
  const [binding, bindingFigures] = entries.reduce((a, b) => (b[1].idealMs > a[1].idealMs ? b : a));
  const efficiency = wallMs / bindingFigures.idealMs;
  const extraCalls = entries.reduce((n, [, a]) => n + a.made - a.planned, 0);
  const rejections = entries.reduce((n, [, a]) => n + a.status429, 0);
  const overQuota = entries.filter(([api, a]) => a.maxInWindow > quotas[api].calls);

  console.log(`quota efficiency: backfill of ${DAYS} day(s), ${plan.spans} spans, quota periods ${PERIOD_MS} ms`);
  for (const [api, a] of entries) {
    console.log(`  ${api.padEnd(10)} planned ${a.planned}, made ${a.made} (paging +${a.made - a.planned}), bound ${a.bound}, made ÷ bound ${a.madePerBound}, 429s ${a.status429}, max in window ${a.maxInWindow}, ideal ${(a.idealMs / 1000).toFixed(1)} s`);
  }
  console.log(`  wall ${(wallMs / 1000).toFixed(1)} s; binding API ${binding}`);
  // Calls of the binding API per quarter second: shows whether the quota or something else paced them.
  if (process.env.BENCH_DIAG) console.log(`  ${binding} calls per 250 ms: ${histogram(stats.apis[binding].admittedAt, 250).join(' ')}`);

  const restart = await afterRestart({ from: range.from - DAYS * DAY, to: range.from }, stats);
  report(
    'quota',
    { days: DAYS, periodMs: PERIOD_MS, spans: plan.spans, wallMs: Math.round(wallMs), binding, efficiency: round(efficiency), perApi, restart },
    [
      target(`wall ÷ (calls ÷ rate) of ${binding}`, efficiency, 'max', 1.05),
      ...entries.map(([api, a]) => target(`${api} calls made ÷ lower bound`, a.made / a.bound, 'max', allowed(api))),
      ...restart.map((r) => target(`${r.api} after a restart: made ÷ lower bound`, r.made / r.bound, 'max', allowed(r.api))),
      target('429 responses', rejections, 'max', 0),
      target('calls beyond plan (paging)', extraCalls, 'max', 0),
      target('after a restart: |calls made − planned|', restart.reduce((n, r) => n + Math.abs(r.made - r.planned), 0), 'max', 0),
      target('APIs over quota in some window', overQuota.length, 'max', 0),
    ],
  );
} finally {
  await rt.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The collector restarted on the same state dir (the paging it learnt kept in paging.json) backfills `range` for
 * the paged APIs: calls made (simulator delta), planned and the lower bound.
 */
async function afterRestart(range: { from: number; to: number }, before: Awaited<ReturnType<typeof sim.stats>>) {
  await rt.close();
  rt = await runtimeFor(config);
  const apis = ['statistic', 'streamstat'] as const;
  const plan = planBackfill(rt.collector, range, [...apis]);
  const failed = (await runBackfill(rt.collector, plan)).filter((r) => r.error);
  if (failed.length > 0) throw new Error(`backfill after restart failed: ${JSON.stringify(failed)}`);
  const after = await sim.stats();
  const bound = lowerBound(config, sim.accounts, range, (api) => rt.http.paging.largestPage(api));
  return apis.map((api) => {
    const made = after.apis[api].admittedAt.length - before.apis[api].admittedAt.length;
    console.log(`  after a restart, the week before: ${api} planned ${plan.calls[api] ?? 0}, made ${made}, bound ${bound[api]}`);
    return { api, planned: plan.calls[api] ?? 0, made, bound: bound[api] ?? 0 };
  });
}
