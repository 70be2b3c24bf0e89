/**
 * Memory and freshness of the long-running collector: every job against the simulator (its own process) with 1,000
 * resources and 200 streams, on a clock SPEED times faster than real time (ScaledClock in both), for 24 simulated
 * hours (2 with --quick). Each job runs in its own loop — a live pass, then 50 ms — as the daemon's per-API schedules
 * would if they fired the moment a window becomes collectable; self-monitoring points and checkpoint compaction every
 * simulated minute as in the daemon. Points go to a temp file.
 * - Memory: RSS sampled every real second. Targets: peak ≤ 80 MB; second half slope ≈ 0 (≤ 0.5 MB per simulated hour).
 * - Freshness: for every window, the real time from it becoming collectable (end + delay/lag) to the pass that
 *   confirmed it (checkpoint watermark advanced), i.e. (sim time at confirmation − collectable time) ÷ SPEED.
 *   Target: ≤ 5 s, once the first catch-up pass (initial lookback) is done.
 *
 * Run: node bench/run.js daemon-soak [--quick]; env BENCH_SPEED, BENCH_SIM_HOURS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ScaledClock } from '../src/clock.js';
import { createRuntime } from '../src/collector/runtime.js';
import { createLogger } from '../src/log.js';
import { defaultQuotas } from '../src/sim/quota.js';
import { HOUR, MINUTE } from '../src/time.js';
import { RESOURCES, STREAMS } from './lib/points.js';
import { quick, report, round, slope, target } from './lib/results.js';
import { configForProcess, startSimProcess } from './lib/sim-process.js';

const SPEED = Number(process.env.BENCH_SPEED ?? 240);
const SIM_HOURS = Number(process.env.BENCH_SIM_HOURS ?? (quick() ? 2 : 24));

const dir = mkdtempSync(join(tmpdir(), 'bench-soak-'));
const sim = await startSimProcess({ quotas: defaultQuotas, accounts: 2, resources: RESOURCES / 2, streams: STREAMS / 2, clockSpeed: SPEED });
// The collector's clock follows the simulator's (same speed, origin read from it; off by one request's latency × SPEED).
const clock = new ScaledClock((await sim.stats()).now, SPEED);
const config = configForProcess(sim, defaultQuotas, { type: 'file', path: join(dir, 'points.lp') }, { log: { level: 'error' } });
const rt = await createRuntime(config, clock, createLogger('error', { pretty: false }));
const start = clock.now();
const end = start + SIM_HOURS * HOUR;
// Windows that became collectable before this are the initial catch-up, not live freshness.
const warmUntil = start + 15 * MINUTE;

const samples: Array<{ simHours: number; rssMb: number; heapMb: number }> = [];
const freshnessS: number[] = [];
let catchUp = 0;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  samples.push({ simHours: (clock.now() - start) / HOUR, rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20 });
}, 1000);

async function jobLoop(job: (typeof rt.collector.jobs)[number]): Promise<void> {
  let mark = rt.store.watermark(job.key);
  while (clock.now() < end) {
    await rt.collector.runOnce(job, 'live');
    const now = clock.now();
    const next = rt.store.watermark(job.key);
    if (job.checkpointed && next !== undefined && next !== mark) {
      // The newest confirmed window ends at the watermark; it became collectable `delayMs` later.
      const collectableAt = next + job.rule.delayMs;
      if (collectableAt >= warmUntil) freshnessS.push((now - collectableAt) / SPEED / 1000);
      else catchUp++;
      mark = next;
    }
    await delay(50);
  }
}

async function housekeeping(): Promise<void> {
  // As the daemon does once a minute: compaction beyond the horizon and the self-monitoring points.
  while (clock.now() < end) {
    await delay(MINUTE / SPEED);
    for (const job of rt.collector.jobs) {
      rt.telemetry.jobLag(job.key, rt.collector.lagMs(job));
      if (job.checkpointed) await rt.store.compact(job.key, clock.now() - config.state.horizon);
    }
    await rt.sink.write(rt.telemetry.toPoints(clock.now()));
  }
}

try {
  console.log(`daemon soak: ${rt.collector.jobs.length} jobs, ${RESOURCES} resources, ${STREAMS} streams, ${SIM_HOURS} simulated h at ×${SPEED}`);
  await Promise.all([...rt.collector.jobs.map(jobLoop), housekeeping()]);
} finally {
  clearInterval(sampler);
  await rt.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}

const second = samples.filter((s) => s.simHours >= SIM_HOURS / 2);
const slopeMbPerHour = slope(second.map((s) => s.simHours), second.map((s) => s.rssMb));
const heapSlope = slope(second.map((s) => s.simHours), second.map((s) => s.heapMb));
const peakRss = Math.max(...samples.map((s) => s.rssMb));
const sorted = [...freshnessS].sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
const everyHour = samples.filter((_, i) => i % Math.max(1, Math.round(samples.length / Math.max(1, SIM_HOURS))) === 0);
console.log(`  RSS (MB) by simulated hour: ${everyHour.map((s) => `${s.simHours.toFixed(0)}h ${s.rssMb.toFixed(0)}`).join(', ')}`);
console.log(`  second half: RSS slope ${slopeMbPerHour.toFixed(2)} MB/h, heap slope ${heapSlope.toFixed(2)} MB/h`);
console.log(`  freshness of ${sorted.length} windows (+${catchUp} catch-up): p50 ${pct(0.5).toFixed(2)} s, p95 ${pct(0.95).toFixed(2)} s, max ${(sorted.at(-1) ?? NaN).toFixed(2)} s (real)`);
report(
  'daemonSoak',
  {
    speed: SPEED,
    simHours: SIM_HOURS,
    resources: RESOURCES,
    streams: STREAMS,
    jobs: rt.collector.jobs.length,
    rssMbBySimHour: everyHour.map((s) => ({ h: round(s.simHours), rssMb: round(s.rssMb), heapMb: round(s.heapMb) })),
    secondHalfSlopeMbPerSimHour: round(slopeMbPerHour),
    secondHalfHeapSlopeMbPerSimHour: round(heapSlope),
    freshness: { windows: sorted.length, p50: round(pct(0.5)), p95: round(pct(0.95)), max: round(sorted.at(-1) ?? NaN) },
  },
  [
    target('peak RSS', peakRss, 'max', 80, ' MB'),
    target('RSS slope, second half', slopeMbPerHour, 'max', 0.5, ' MB/sim-h'),
    target('freshness max (real s, + configured delay)', sorted.at(-1) ?? Number.POSITIVE_INFINITY, 'max', 5, ' s'),
  ],
);
