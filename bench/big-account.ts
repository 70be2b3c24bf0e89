/**
 * Peak memory of the daemon on one big account: `cdn-collector run` (shipped flags) against the simulator (its own
 * process) with 1 account of 5,000 resources and 100 streams, the spec's quotas, every API enabled and a real HTTP
 * sink (VictoriaMetrics). The first pass catches up the initial lookback (1 h): six 10-minute by-resource windows of
 * 5,000 resources and the statistics of 5,000 resources, the pass where memory peaked. RSS is read from
 * /proc/<pid>/status every 250 ms. Target: peak ≤ 200 MB.
 *
 * Run: node bench/run.js big-account [--quick]  (4 min; --quick 2 min; env BENCH_BIG_SECONDS, BENCH_BIG_RESOURCES
 * override; BENCH_COLLECTOR_BIN=<path> runs another build's bin/cdn-collector.js, for an A/B against an earlier build).
 * BENCH_BIG_LOOKBACK (state.initialLookback, default 1h) makes the first pass catch up longer, as a restart after that
 * much downtime does; BENCH_BIG_ACCOUNTS runs several accounts of that many resources each. BENCH_BIG_ONLY=statistic
 * collects the statistics of resources alone (the largest answers of a catch-up), without quotas on the simulator
 * and with a 5-minute call deadline: the catch-up's answers then arrive whatever the load of the machine, which
 * otherwise slows the simulator until calls time out and the catch-up, and its peak, never happen.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { defaultQuotas } from '../src/sim/quota.js';
import { freePort, startVictoriaMetrics } from '../test/helpers/servers.js';
import { loadAverage, rssMb } from './lib/proc-sample.js';
import { quick, report, round, target, ROOT } from './lib/results.js';
import { startSimProcess } from './lib/sim-process.js';
import { daemonEnv, writeDaemonConfig } from './lib/daemon-config.js';

const SECONDS = Number(process.env.BENCH_BIG_SECONDS ?? (quick() ? 120 : 240));
const RESOURCES = Number(process.env.BENCH_BIG_RESOURCES ?? 5000);
const ACCOUNTS = Number(process.env.BENCH_BIG_ACCOUNTS ?? 1);
const LOOKBACK = process.env.BENCH_BIG_LOOKBACK ?? '1h';
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const BIN = process.env.BENCH_COLLECTOR_BIN ?? join(ROOT, 'bin', 'cdn-collector.js');
const ONLY_STATISTIC = process.env.BENCH_BIG_ONLY === 'statistic';
if (process.env.BENCH_BIG_ONLY !== undefined && !ONLY_STATISTIC) throw new Error('BENCH_BIG_ONLY: only `statistic`');
const quotas = ONLY_STATISTIC ? { ...defaultQuotas, statistic: null } : defaultQuotas;

const dir = mkdtempSync(join(tmpdir(), 'bench-big-'));
const [sim, vm, port] = await Promise.all([
  startSimProcess({ quotas, accounts: ACCOUNTS, resources: RESOURCES, streams: 100 }),
  startVictoriaMetrics(),
  freePort(),
]);
const statisticOnly = {
  api: { baseUrl: sim.url, token: sim.token, timeout: '5m' },
  quotas: Object.fromEntries(
    Object.entries(quotas).map(([api, q]) => [
      api,
      q ? { calls: q.calls, period: `${q.periodMs}ms` } : { calls: 100_000, period: '1ms' }, // off, as configQuotasOf
    ]),
  ),
  jobs: {
    statistic: { groupings: ['resources'] },
    metrics: { enabled: false },
    streamstat: { enabled: false },
    dvr: { enabled: false },
  },
};
const configPath = writeDaemonConfig(
  dir,
  sim,
  vm.url,
  port,
  { initialLookback: LOOKBACK },
  ONLY_STATISTIC ? statisticOnly : {},
);

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
const only = ONLY_STATISTIC ? ', statistic only' : '';
const shape = `${ACCOUNTS} account(s) of ${RESOURCES} resources, lookback ${LOOKBACK}${only}`;
console.log(`big account: cdn-collector run (${NODE_FLAGS.join(' ')}), ${shape}, ${SECONDS} s real time`);
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
} finally {
  child.kill('SIGTERM');
  await exited;
  await Promise.all([sim.close(), vm.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `  peak RSS ${peak.toFixed(1)} MB; load average (1 min) by minute: ${loads.map((l) => l[0].toFixed(2)).join(', ')}`,
);
report(
  'bigAccount',
  {
    seconds: SECONDS,
    resources: RESOURCES,
    accounts: ACCOUNTS,
    lookback: LOOKBACK,
    only: ONLY_STATISTIC ? 'statistic' : 'all',
    nodeFlags: NODE_FLAGS.join(' '),
    peakRssMb: round(peak),
    peakRssMbByMinute: byMinute.map(round),
    loadAverage: loads.map((l) => round(l[0])),
  },
  [target(`peak RSS, ${shape}`, peak, 'max', 200, ' MB')],
);
