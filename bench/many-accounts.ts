/**
 * Peak memory of the daemon with many accounts: `cdn-collector run` (shipped flags) with `accounts: auto` against the
 * simulator (its own process) holding 2,000 accounts of the simulator's default size (3 resources, 3 streams), every
 * API at its defaults and the spec's quotas, VictoriaMetrics as the sink. Discovery finds every account before the
 * first pass, so the daemon holds ~28,000 jobs; the first pass catches up the initial lookback (1 h) of all of them,
 * far more calls than the quotas allow, so most jobs wait their turn the whole run. RSS is read from
 * /proc/<pid>/status every 250 ms. Target: peak ≤ 300 MB.
 *
 * Run: node bench/run.js many-accounts [--quick]  (3 min; --quick 90 s; env BENCH_MANY_SECONDS, BENCH_MANY_ACCOUNTS
 * override; BENCH_COLLECTOR_BIN=<path> runs another build's bin/cdn-collector.js, for an A/B against an earlier build).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { defaultQuotas } from '../src/sim/quota.js';
import { freePort, startVictoriaMetrics } from '../test/helpers/servers.js';
import { loadAverage, rssMb } from './lib/proc-sample.js';
import { quick, report, round, target, ROOT } from './lib/results.js';
import { startSimProcess } from './lib/sim-process.js';
import { daemonEnv, writeDaemonConfig } from './lib/daemon-config.js';

const SECONDS = Number(process.env.BENCH_MANY_SECONDS ?? (quick() ? 90 : 180));
const ACCOUNTS = Number(process.env.BENCH_MANY_ACCOUNTS ?? 2000);
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const BIN = process.env.BENCH_COLLECTOR_BIN ?? join(ROOT, 'bin', 'cdn-collector.js');

const dir = mkdtempSync(join(tmpdir(), 'bench-many-'));
const [sim, vm, port] = await Promise.all([
  startSimProcess({ quotas: defaultQuotas, accounts: ACCOUNTS }),
  startVictoriaMetrics(),
  freePort(),
]);
// accounts: auto, and no DVR stream list (streams are configured, not discovered): DVR has no jobs.
const configPath = writeDaemonConfig(dir, sim, vm.url, port, {}, { accounts: 'auto', jobs: {} });

const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'run', '--config', configPath], {
  env: daemonEnv(),
  stdio: ['ignore', 'inherit', 'inherit'],
});
const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
const loads: Array<[number, number, number]> = [loadAverage()];
const byMinute: number[] = [];
const started = Date.now();
let peak = 0;
let minutePeak = 0;
let scrape: Scrape = { jobs: 0, heapUsedMb: 0 };
console.log(`many accounts: cdn-collector run (${NODE_FLAGS.join(' ')}), ${ACCOUNTS} accounts (auto), ${SECONDS} s`);
try {
  while (Date.now() - started < SECONDS * 1000) {
    await delay(250);
    const rss = rssMb(child.pid!);
    if (rss === undefined) throw new Error(`the daemon exited early (code ${await exited})`);
    peak = Math.max(peak, rss);
    minutePeak = Math.max(minutePeak, rss);
    if (Date.now() - started >= (byMinute.length + 1) * 60_000) {
      byMinute.push(minutePeak);
      loads.push(loadAverage());
      console.log(`  minute ${byMinute.length}: peak RSS ${minutePeak.toFixed(1)} MB`);
      minutePeak = 0;
    }
  }
  scrape = await scrapeDaemon(port);
} finally {
  child.kill('SIGTERM');
  await exited;
  await Promise.all([sim.close(), vm.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
if (minutePeak > 0) byMinute.push(minutePeak);
console.log(
  `  peak RSS ${peak.toFixed(1)} MB; jobs ${scrape.jobs}, heap used at the end ${scrape.heapUsedMb.toFixed(1)} MB; ` +
    `load average (1 min) by minute: ${loads.map((l) => l[0].toFixed(2)).join(', ')}`,
);
report(
  'manyAccounts',
  {
    seconds: SECONDS,
    accounts: ACCOUNTS,
    jobs: scrape.jobs,
    nodeFlags: NODE_FLAGS.join(' '),
    peakRssMb: round(peak),
    peakRssMbByMinute: byMinute.map(round),
    heapUsedMbAtEnd: round(scrape.heapUsedMb),
    loadAverage: loads.map((l) => round(l[0])),
  },
  [target(`peak RSS, ${ACCOUNTS} accounts (auto), every API at its defaults`, peak, 'max', 300, ' MB')],
);

interface Scrape {
  /** Jobs the daemon reports (one backlog series each): every discovered account's jobs were made. */
  jobs: number;
  heapUsedMb: number;
}

async function scrapeDaemon(telemetryPort: number): Promise<Scrape> {
  const res = await request(`http://127.0.0.1:${telemetryPort}/metrics`);
  const text = await res.body.text();
  const jobs = text.match(/^cdn_collector_job_backlog_windows\{/gm)?.length ?? 0;
  const heap = Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? 0);
  return { jobs, heapUsedMb: heap / 2 ** 20 };
}
