/**
 * Start-up: how long the CLI takes before it is useful, against bare node doing the same.
 * - `--help`: wall time of `cdn-collector --help` (and `run --help`) to exit ÷ `node -e 0`.
 * - First API call: the time from spawning `cdn-collector api metrics / -q account=… -q start=… -q end=…` to its
 * request
 *   arriving at the simulator ÷ the same for `node -e "fetch(url)"` (bare node + the request). Arrival is seen by a
 *   TCP relay in this process in front of the simulator (its own process): the first byte of the connection.
 * Every pair runs A then B back to back (alternated, so load drifts hit both), with the same node flags (those of
 * bin/cdn-collector.js's shebang, from BENCH_NODE_FLAGS); the figure is the ratio of the medians; the load average
 * is recorded before and after. Targets: each ratio ≤ 1.5.
 * CPU time (user + system, all threads, read by a `--require` hook at exit on both sides) is reported beside the wall
 * times: on 2 shared cores the wall time is mostly waiting for a core, while the CPU time of a start-up is stable.
 *
 * Run: node bench/run.js startup [--quick]; env BENCH_PAIRS (default 9, 5 with --quick), BENCH_CLI (another
 * bin/cdn-collector.js, e.g. an older build, to measure it instead).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { quick, report, ROOT, round, target } from './lib/results.js';
import { startSimProcess } from './lib/sim-process.js';

const PAIRS = Number(process.env.BENCH_PAIRS ?? (quick() ? 5 : 9));
const CLI = process.env.BENCH_CLI ?? join(ROOT, 'bin', 'cdn-collector.js');
const FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

/** A process's wall time to exit and, when it made a request through the relay, to the request's first byte. */
interface Timing {
  exitMs: number;
  arrivalMs?: number;
  /** CPU time (user + system) of the whole process, as it reported at exit. */
  cpuMs: number;
}

// Preloaded on both sides: writes the process's CPU time to fd 3 when it exits.
const hookDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const CPU_HOOK = join(hookDir, 'cpu-at-exit.cjs');
writeFileSync(
  CPU_HOOK,
  "process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeSync(3, " +
    'String((u.user + u.system) / 1000)); });\n',
);

const sim = await startSimProcess();
let arrived: (() => void) | undefined;
// The relay: records the first byte of each connection, then passes everything both ways.
const relay = createServer((socket) => {
  const upstream = createConnection(Number(new URL(sim.url).port), '127.0.0.1');
  socket.once('data', () => arrived?.());
  socket.pipe(upstream).pipe(socket);
  const end = () => (socket.destroy(), upstream.destroy());
  socket.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
});
await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;

function timed(args: string[], env: Record<string, string> = {}): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const timing: Partial<Timing> = {};
    const started = performance.now();
    arrived = () => (timing.arrivalMs ??= performance.now() - started);
    const child = spawn(process.execPath, [...FLAGS, '--require', CPU_HOOK, ...args], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    let cpu = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdio[3]!.on('data', (c: Buffer) => (cpu += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${args.join(' ').slice(0, 80)} exited with ${code}: ${stderr}`));
      resolve({ ...timing, exitMs: performance.now() - started, cpuMs: Number(cpu) });
    });
  });
}

const account = sim.accounts[0]!;
// A ten-minute window of an hour ago: a valid request (both sides must succeed), answered in a few ms.
const minute = (ms: number) => new Date(ms - (ms % 60_000)).toISOString().slice(0, 19);
const query = { account, start: minute(Date.now() - 70 * 60_000), end: minute(Date.now() - 60 * 60_000) };
const path = `/app/metrics/v1/?${new URLSearchParams(query).toString()}`;
const bareFetch = [
  '-e',
  "fetch(process.argv[1], { headers: { 'cdn-auth-token': process.argv[2] } }).then((r) => r.text()).then((t) => " +
    'process.stdout.write(t))',
  `${relayUrl}${path}`,
  sim.token,
];
const apiCall = [CLI, 'api', 'metrics', '/', ...Object.entries(query).flatMap(([k, v]) => ['-q', `${k}=${v}`])];
const apiEnv = { CDN_BASE_URL: relayUrl, CDN_TOKEN: sim.token };

/** `PAIRS` runs of a then b, alternated; every timing kept. */
async function pairs(a: () => Promise<Timing>, b: () => Promise<Timing>): Promise<{ a: Timing[]; b: Timing[] }> {
  await a(); // warm the file cache for both sides
  await b();
  const out = { a: [] as Timing[], b: [] as Timing[] };
  for (let i = 0; i < PAIRS; i++) {
    out.a.push(await a());
    out.b.push(await b());
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (ts: Timing[], key: keyof Timing) => round(median(ts.map((t) => t[key]!)));

const loadBefore = loadavg();
const help = await pairs(
  () => timed(['-e', '0']),
  () => timed([CLI, '--help']),
);
const runHelp = await pairs(
  () => timed(['-e', '0']),
  () => timed([CLI, 'run', '--help']),
);
const api = await pairs(
  () => timed(bareFetch),
  () => timed(apiCall, apiEnv),
);
const loadAfter = loadavg();
relay.close();
await sim.close();
rmSync(hookDir, { recursive: true, force: true });

const figures = {
  pairs: PAIRS,
  nodeFlags: FLAGS.join(' '),
  cli: CLI,
  loadAverage: { before: loadBefore.map(round), after: loadAfter.map(round) },
  helpMs: { bare: ms(help.a, 'exitMs'), cli: ms(help.b, 'exitMs') },
  runHelpMs: { bare: ms(runHelp.a, 'exitMs'), cli: ms(runHelp.b, 'exitMs') },
  firstCallArrivalMs: { bare: ms(api.a, 'arrivalMs'), cli: ms(api.b, 'arrivalMs') },
  firstCallExitMs: { bare: ms(api.a, 'exitMs'), cli: ms(api.b, 'exitMs') },
  cpuMs: {
    help: { bare: ms(help.a, 'cpuMs'), cli: ms(help.b, 'cpuMs') },
    runHelp: { bare: ms(runHelp.a, 'cpuMs'), cli: ms(runHelp.b, 'cpuMs') },
    firstCall: { bare: ms(api.a, 'cpuMs'), cli: ms(api.b, 'cpuMs') },
  },
};
const cpuRatio = (f: { bare: number; cli: number }) => `${f.cli} / ${f.bare} ms = ${round(f.cli / f.bare)}`;
console.log(
  `  ${PAIRS} pairs; load average ${figures.loadAverage.before.join(' ')} → ${figures.loadAverage.after.join(' ')}; ` +
    `node flags: ${figures.nodeFlags || '(none)'}`,
);
console.log(
  `  --help ${figures.helpMs.cli} ms vs node -e 0 ${figures.helpMs.bare} ms; run --help ${figures.runHelpMs.cli} ms ` +
    `vs ${figures.runHelpMs.bare} ms`,
);
console.log(
  `  api first call arrives at ${figures.firstCallArrivalMs.cli} ms ` +
    `vs bare fetch ${figures.firstCallArrivalMs.bare} ms ` +
    `(exit ${figures.firstCallExitMs.cli} vs ${figures.firstCallExitMs.bare} ms)`,
);
console.log(
  `  CPU time: --help ${cpuRatio(figures.cpuMs.help)}; run --help ${cpuRatio(figures.cpuMs.runHelp)}; ` +
    `api (to exit) ${cpuRatio(figures.cpuMs.firstCall)}`,
);
report('startup', figures, [
  target('--help ÷ node -e 0', figures.helpMs.cli / figures.helpMs.bare, 'max', 1.5),
  target('run --help ÷ node -e 0', figures.runHelpMs.cli / figures.runHelpMs.bare, 'max', 1.5),
  target(
    'api first call arrival ÷ bare fetch',
    figures.firstCallArrivalMs.cli / figures.firstCallArrivalMs.bare,
    'max',
    1.5,
  ),
]);
