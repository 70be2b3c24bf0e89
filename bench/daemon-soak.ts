/**
 * Memory and CPU of the daemon as it ships: `node <shebang flags> bin/cdn-collector.js run --config <yaml>` in its own
 * process with the image's environment (daemonEnv: MALLOC_ARENA_MAX=2), every API enabled (metrics with the
 * per-resource breakdown, statistic, streamstat, DVR) against the
 * simulator (its own process: 2 accounts × 500 resources and 100 streams, the spec's quotas) and a real HTTP sink
 * (VictoriaMetrics, InfluxDB v2 write API). Real time: the daemon's schedules are cron, minute-based; the first pass
 * catches up the initial lookback (1 h), then the live passes follow.
 * - RSS from /proc/<pid>/status every second: steady = median of the second half; peak; second-half slope.
 * - CPU from /proc/<pid>/stat (user + system) ÷ collected points the daemon confirmed (its /metrics counter
 *   points_written, without its own self-monitoring points).
 * Targets: steady ≤ 80 MB, peak ≤ 110 MB, flat second half, CPU ≤ 76 µs per point (380 ÷ 5).
 *
 * Run: node bench/run.js daemon-soak [--quick]  (8 min; --quick 3 min; env BENCH_SOAK_SECONDS overrides).
 * env BENCH_CPU_PROF=<dir>: the daemon runs with --cpu-prof into <dir> (a .cpuprofile written when it stops);
 * BENCH_COLLECTOR_BIN=<path>: another build's bin/cdn-collector.js (A/B against a copy of an earlier build).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { defaultQuotas } from '../src/sim/quota.js';
import { METRIC_PREFIX, METRICS } from '../src/telemetry/metrics.js';
import { freePort, startVictoriaMetrics } from '../test/helpers/servers.js';
import { RESOURCES, STREAMS } from './lib/points.js';
import { cpuSeconds, loadAverage, rssMb, type ProcSample } from './lib/proc-sample.js';
import { quick, report, round, slope, target, ROOT } from './lib/results.js';
import { startSimProcess } from './lib/sim-process.js';
import { daemonEnv, writeDaemonConfig } from './lib/daemon-config.js';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? (quick() ? 180 : 480));
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
// A/B: another build's launcher (e.g. a copy of bin/ and dist/ from the commit before a change).
const BIN = process.env.BENCH_COLLECTOR_BIN ?? join(ROOT, 'bin', 'cdn-collector.js');

const dir = mkdtempSync(join(tmpdir(), 'bench-soak-'));
const [sim, vm, port] = await Promise.all([
  startSimProcess({ quotas: defaultQuotas, accounts: 2, resources: RESOURCES / 2, streams: STREAMS / 2 }),
  startVictoriaMetrics(),
  freePort(),
]);
const configPath = writeDaemonConfig(dir, sim, vm.url, port);

const profileFlags = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
const child = spawn(process.execPath, [...NODE_FLAGS, ...profileFlags, BIN, 'run', '--config', configPath], {
  env: daemonEnv(),
  stdio: ['ignore', 'inherit', 'inherit'],
});
const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
const pid = child.pid!;

interface Scrape {
  /** Collected points the daemon's sink confirmed so far (its self-monitoring points apart: selfPoints). */
  points: number;
  selfPoints: number;
  /** Its V8 heap: used and total (what the RSS holds besides code, stacks and buffers). */
  heapUsedMb: number;
  heapTotalMb: number;
}

/** The daemon's own /metrics: what it wrote and its heap. */
async function scrape(): Promise<Scrape | undefined> {
  try {
    const res = await request(`http://127.0.0.1:${port}/metrics`);
    const lines = (await res.body.text()).split('\n');
    const sum = (name: string, only = (_line: string) => true) =>
      lines
        .filter((line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && only(line))
        .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    const mb = (name: string) => sum(name) / 2 ** 20;
    const isSelf = (line: string) => line.includes(`measurement_name="${METRIC_PREFIX}"`);
    return {
      points: sum(METRICS.points_written.promName, (line) => !isSelf(line)),
      selfPoints: sum(METRICS.points_written.promName, isSelf),
      heapUsedMb: mb('nodejs_heap_size_used_bytes'),
      heapTotalMb: mb('nodejs_heap_size_total_bytes'),
    };
  } catch {
    return undefined; // not listening yet
  }
}

type Sample = ProcSample & Scrape;
const samples: Sample[] = [];
const loads: Array<[number, number, number]> = [loadAverage()];
const started = Date.now();
let scraped: Scrape = { points: 0, selfPoints: 0, heapUsedMb: 0, heapTotalMb: 0 };
console.log(
  `daemon soak: cdn-collector run (${NODE_FLAGS.join(' ')}), ${RESOURCES} resources, ${STREAMS} streams, ` +
    `${SECONDS} s real time`,
);
try {
  while (Date.now() - started < SECONDS * 1000) {
    await delay(1000 - ((Date.now() - started) % 1000));
    const rss = rssMb(pid);
    const cpu = cpuSeconds(pid);
    if (rss === undefined || cpu === undefined) throw new Error(`the daemon exited early (code ${await exited})`);
    // Every 10 s (and the last second): rendering /metrics costs the daemon CPU too.
    if (samples.length % 10 === 9 || Date.now() - started >= (SECONDS - 1) * 1000)
      scraped = (await scrape()) ?? scraped;
    samples.push({ t: (Date.now() - started) / 1000, rssMb: rss, cpuS: cpu, ...scraped });
    if (samples.length % 60 === 0) {
      loads.push(loadAverage());
      console.log(
        `  ${samples.length} s: RSS ${rss.toFixed(1)} MB (heap ${scraped.heapUsedMb.toFixed(1)} used of ` +
          `${scraped.heapTotalMb.toFixed(1)}), CPU ${cpu.toFixed(1)} s, ${scraped.points} points`,
      );
    }
  }
} finally {
  child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) console.log(`  the daemon exited with ${code}`);
  await Promise.all([sim.close(), vm.stop()]);
  rmSync(dir, { recursive: true, force: true });
}

const last = samples.at(-1)!;
const second = samples.filter((s) => s.t >= SECONDS / 2);
const firstOfSecond = second[0]!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const steadyRss = median(second.map((s) => s.rssMb));
const steadyHeapUsed = median(second.map((s) => s.heapUsedMb));
const steadyHeapTotal = median(second.map((s) => s.heapTotalMb));
const peakRss = Math.max(...samples.map((s) => s.rssMb));
const slopeMbPerMin = slope(
  second.map((s) => s.t / 60),
  second.map((s) => s.rssMb),
);
const cpuUsPerPoint = (last.cpuS * 1e6) / Math.max(1, last.points);
// The second half is the live passes alone (the first pass's catch-up is over): its own CPU per point.
const secondPoints = last.points - firstOfSecond.points;
const secondCpuUsPerPoint = ((last.cpuS - firstOfSecond.cpuS) * 1e6) / Math.max(1, secondPoints);
const pointsPerMin = (last.points / last.t) * 60;
const everyMinute = samples.filter((_, i) => (i + 1) % 60 === 0);
console.log(`  RSS (MB) by minute: ${everyMinute.map((s) => s.rssMb.toFixed(0)).join(', ')}`);
console.log(
  `  steady RSS ${steadyRss.toFixed(1)} MB (median of the second half; heap ${steadyHeapUsed.toFixed(1)} used of ` +
    `${steadyHeapTotal.toFixed(1)}), peak ${peakRss.toFixed(1)} MB, slope ${slopeMbPerMin.toFixed(2)} MB/min`,
);
console.log(
  `  ${last.points} collected points (${pointsPerMin.toFixed(0)}/min; + ${last.selfPoints} self-monitoring), ` +
    `CPU ${last.cpuS.toFixed(1)} s: ${cpuUsPerPoint.toFixed(0)} µs/point; second half ${secondPoints} points, ` +
    `${secondCpuUsPerPoint.toFixed(0)} µs/point`,
);
console.log(`  load average (1 min) by minute: ${loads.map((l) => l[0].toFixed(2)).join(', ')}`);
report(
  'daemonSoak',
  {
    seconds: SECONDS,
    nodeFlags: NODE_FLAGS.join(' '),
    resources: RESOURCES,
    streams: STREAMS,
    rssMbByMinute: everyMinute.map((s) => round(s.rssMb)),
    steadyRssMb: round(steadyRss),
    steadyHeapMb: { used: round(steadyHeapUsed), total: round(steadyHeapTotal) },
    peakRssMb: round(peakRss),
    secondHalfSlopeMbPerMin: round(slopeMbPerMin),
    points: last.points,
    selfMonitoringPoints: last.selfPoints,
    pointsPerMin: round(pointsPerMin),
    cpuS: round(last.cpuS),
    cpuUsPerPoint: round(cpuUsPerPoint),
    secondHalf: { points: secondPoints, cpuUsPerPoint: round(secondCpuUsPerPoint) },
    loadAverage: loads.map((l) => round(l[0])),
  },
  [
    target('steady RSS (median, second half)', steadyRss, 'max', 80, ' MB'),
    target('peak RSS', peakRss, 'max', 110, ' MB'),
    target('RSS slope, second half', slopeMbPerMin, 'max', 0.5, ' MB/min'),
    target('CPU per collected point', cpuUsPerPoint, 'max', 380 / 5, ' µs'),
  ],
);
