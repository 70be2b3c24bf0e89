/**
 * Quota efficiency: a backfill of every job over 7 simulated days against the simulator, with every quota period
 * scaled from 1 minute to 2 s (same calls per period as the spec; metrics 120, statistic 5, streamstat 30, dvr 60).
 * Reports, per API, the calls planned (the least calls of planBackfill), made (what the simulator admitted; paging may
 * add calls), the lower bound the API rules allow (bench/lib/quota-bound.ts, independent of the planner) and made ÷
 * bound (target 1.00; ≤ 1.05 for the paged APIs), the 429s (must be 0), and for the binding API — the one whose quota
 * needs longest — wall time ÷ (calls ÷ quota rate), target ≤ 1.05.
 * Then the collector restarts on the same state dir and backfills the week before for statistic and stream views: what
 * paging learnt (state/paging.json) must spare the capped-page check (`restart` figures).
 * All of it twice, on fresh state: `guard` — the server's page cap unknown (the default: a short page as large as any
 * seen is checked with one more call) — and `capStated` — `api.serverMaxLimit: 1000`, the simulator's documented max
 * limit, so no page is checked.
 *
 * Run: node bench/run.js quota   (or --quick: 1 day)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runBackfill } from '../src/backfill/backfill.js';
import type { CollectorConfig } from '../src/config/schema.js';
import { planBackfill } from '../src/plan/planner.js';
import { API_NAMES, type ApiName } from '../src/spec/apis.js';
import { scaledQuotas } from '../src/sim/quota.js';
import { maxInSlidingWindow } from '../src/sim/stats.js';
import { DAY, HOUR } from '../src/time.js';
import { runtimeFor } from '../test/helpers/collector.js';
import { configForProcess, startSimProcess } from './lib/sim-process.js';
import { lowerBound } from './lib/quota-bound.js';
import { quick, report, round, target, type Target } from './lib/results.js';

const PERIOD_MS = Number(process.env.BENCH_QUOTA_PERIOD_MS ?? 2000);
const DAYS = Number(process.env.BENCH_DAYS ?? (quick() ? 1 : 7));
/** The simulator's largest `limit` (src/sim/server.ts `maxLimit`), stated in the second run. */
const SIM_MAX_LIMIT = 1000;

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

type Stats = Awaited<ReturnType<typeof sim.stats>>;

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
/** Made ÷ bound an API may reach: paged reads may need the page that checks a page as large as any seen. */
const allowed = (api: ApiName) => (api === 'statistic' || api === 'streamstat' ? 1.05 : 1);
try {
  // Whole hours, old enough that statistics are final (lag 1 h).
  const to = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
  const range = { from: to - DAYS * DAY, to };
  const guard = await scenario('guard (serverMaxLimit unset)', {}, range);
  // The sim's quota windows of the first run drain before the second one's fresh limiters start.
  await sleep(PERIOD_MS * 1.5);
  const capStated = await scenario(
    `capStated (serverMaxLimit ${SIM_MAX_LIMIT})`,
    { serverMaxLimit: SIM_MAX_LIMIT },
    range,
  );
  report('quota', { days: DAYS, periodMs: PERIOD_MS, guard: guard.figures, capStated: capStated.figures }, [
    ...guard.targets,
    ...capStated.targets,
  ]);
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}

/** One backfill of `range` on fresh state with `api` settings added, then the week before after a restart. */
async function scenario(label: string, api: Record<string, unknown>, range: { from: number; to: number }) {
  const base = configForProcess(sim, quotas, { type: 'file', path: join(dir, `${label.split(' ')[0]}.lp`) });
  const config = { ...base, api: { ...base.api, ...api } } as CollectorConfig;
  let rt = await runtimeFor(config);
  try {
    const before = await sim.stats();
    const plan = planBackfill(rt.collector, range);
    const started = performance.now();
    const results = await runBackfill(rt.collector, plan);
    const wallMs = performance.now() - started;
    const failed = results.filter((r) => r.error);
    if (failed.length > 0) throw new Error(`backfill failed: ${JSON.stringify(failed)}`);

    const stats = await sim.stats();
    const bound = lowerBound(config, sim.accounts, range, (a) => rt.paging.largestPage(a));
    const perApi: Partial<Record<ApiName, ApiFigures>> = {};
    for (const a of API_NAMES.filter((n) => plan.calls[n])) {
      const admitted = stats.apis[a].admittedAt.slice(before.apis[a].admittedAt.length);
      const rule = quotas[a];
      const made = admitted.length;
      perApi[a] = {
        planned: plan.calls[a] ?? 0,
        made,
        bound: bound[a] ?? 0,
        madePerBound: round(made / (bound[a] ?? made)),
        status429: (stats.apis[a].byStatus['429'] ?? 0) - (before.apis[a].byStatus['429'] ?? 0),
        maxInWindow: maxInSlidingWindow(admitted, rule.periodMs),
        quota: `${rule.calls}/${rule.periodMs}ms`,
        idealMs: Math.round((made / rule.calls) * rule.periodMs),
      };
    }
    const entries = Object.entries(perApi) as Array<[ApiName, ApiFigures]>;
    const [binding, bindingFigures] = entries.reduce((a, b) => (b[1].idealMs > a[1].idealMs ? b : a));
    const efficiency = wallMs / bindingFigures.idealMs;
    const extraCalls = entries.reduce((n, [, a]) => n + a.made - a.planned, 0);
    const rejections = entries.reduce((n, [, a]) => n + a.status429, 0);
    const overQuota = entries.filter(([a, f]) => f.maxInWindow > quotas[a].calls);

    console.log(
      `quota efficiency, ${label}: backfill of ${DAYS} day(s), ${plan.spans} spans, quota periods ${PERIOD_MS} ms`,
    );
    for (const [a, f] of entries) {
      console.log(
        `  ${a.padEnd(10)} planned ${f.planned}, made ${f.made} (paging +${f.made - f.planned}), bound ${f.bound}, ` +
          `made ÷ bound ${f.madePerBound}, 429s ${f.status429}, max in window ${f.maxInWindow}, ` +
          `ideal ${(f.idealMs / 1000).toFixed(1)} s`,
      );
    }
    console.log(`  wall ${(wallMs / 1000).toFixed(1)} s; binding API ${binding}`);
    // Calls of the binding API per quarter second: shows whether the quota or something else paced them.
    if (process.env.BENCH_DIAG)
      console.log(`  ${binding} calls per 250 ms: ${histogram(stats.apis[binding].admittedAt, 250).join(' ')}`);

    await rt.close();
    rt = await runtimeFor(config);
    const restart = await afterRestart(rt, config, { from: range.from - DAYS * DAY, to: range.from }, stats);
    const name = label.split(' ')[0];
    const targets: Target[] = [
      target(`${name}: wall ÷ (calls ÷ rate) of ${binding}`, efficiency, 'max', 1.05),
      ...entries.map(([a, f]) => target(`${name}: ${a} calls made ÷ lower bound`, f.made / f.bound, 'max', allowed(a))),
      ...restart.map((r) =>
        target(`${name}: ${r.api} after a restart: made ÷ lower bound`, r.made / r.bound, 'max', allowed(r.api)),
      ),
      target(`${name}: 429 responses`, rejections, 'max', 0),
      target(`${name}: calls beyond plan (paging)`, extraCalls, 'max', 0),
      target(
        `${name}: after a restart: |calls made − planned|`,
        restart.reduce((n, r) => n + Math.abs(r.made - r.planned), 0),
        'max',
        0,
      ),
      target(
        `${name}: after a restart: planned range (most − least), learnt paging`,
        restart.reduce((n, r) => n + (r.plannedMost - r.planned), 0),
        'max',
        0,
      ),
      target(`${name}: APIs over quota in some window`, overQuota.length, 'max', 0),
    ];
    return {
      figures: {
        spans: plan.spans,
        wallMs: Math.round(wallMs),
        binding,
        efficiency: round(efficiency),
        perApi,
        restart,
      },
      targets,
    };
  } finally {
    await rt.close();
  }
}

/**
 * The collector restarted on the same state dir (the paging it learnt kept in paging.json) backfills `range` for
 * the paged APIs: calls made (simulator delta), planned and the lower bound.
 */
async function afterRestart(
  rt: Awaited<ReturnType<typeof runtimeFor>>,
  config: CollectorConfig,
  range: { from: number; to: number },
  before: Stats,
) {
  const apis = ['statistic', 'streamstat'] as const;
  const plan = planBackfill(rt.collector, range, [...apis]);
  const failed = (await runBackfill(rt.collector, plan)).filter((r) => r.error);
  if (failed.length > 0) throw new Error(`backfill after restart failed: ${JSON.stringify(failed)}`);
  const after = await sim.stats();
  const bound = lowerBound(config, sim.accounts, range, (api) => rt.paging.largestPage(api));
  return apis.map((api) => {
    const made = after.apis[api].admittedAt.length - before.apis[api].admittedAt.length;
    const planned = plan.calls[api] ?? 0;
    const plannedMost = plan.callsMost[api] ?? planned;
    const range = plannedMost === planned ? `${planned}` : `${planned}–${plannedMost}`;
    console.log(`  after a restart, the week before: ${api} planned ${range}, made ${made}, bound ${bound[api]}`);
    return { api, planned, plannedMost, made, bound: bound[api] ?? 0 };
  });
}
