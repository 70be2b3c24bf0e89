/**
 * Sink throughput: points of the real schema (bench/lib/points.ts: 1,000 resources, 200 streams, the collector's
 * chunks) into VictoriaMetrics (v2, /api/v2/write) and InfluxDB 1.6.7 (v1, /write), per kind:
 * - sink: our sink, fed as the collector feeds it: WRITERS jobs side by side, each awaiting its confirmed `write`;
 * - bare: the official client (bench/lib/sink-references.ts), BOUNDED to BENCH_BARE_IN_FLIGHT (default 4) batches
 * on the wire plus one being filled: unbounded, its WriteApi fires every request at once and a run failed on timeouts;
 * - raw: the limit: bodies encoded (and gzipped as the sink would) before the clock starts, POSTed with the sink's
 *   requests in flight;
 * - sink-default: our sink with node's default flags (no heap flags), to show what the shipped flags cost.
 * sink, bare and raw run with the SAME node flags: the collector's (bin/cdn-collector.js's shebang, passed by
 * bench/run.js). Each run is a child process against a fresh server, so peak RSS is its own. Runs alternate within a
 * pair (the order flips every pair); each ratio is the median of the per-pair ratios.
 * A 5xx (a loaded InfluxDB 1.x answers 500 timeout) is retried up to 5 times by every side, and counted per run.
 * Targets: sink ≥ 1.0 × bare, ≥ 0.6 × raw, peak RSS ≤ 150 MB.
 *
 * Each run reports its client CPU per point (all threads, gzip included) and GC's share of its event loop's busy time.
 * Run: node bench/run.js sink-throughput [--quick]; env BENCH_POINTS, BENCH_PAIRS (default 3), BENCH_KINDS (v2,v1),
 * BENCH_WRITERS, BENCH_BATCH, BENCH_IN_FLIGHT (our sink's and raw's; default: the sink's own default),
 * BENCH_BARE_IN_FLIGHT, BENCH_GZIP (gzip level of our v2 sink and its raw bodies), BENCH_ROLES (e.g. sink,raw),
 * BENCH_BASELINE (a bundle of this bench from an older tree: its sink runs as `sink-base`, alternated with ours).
 */
import { spawn } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_IN_FLIGHT_V1 } from '../src/sink/influx-v1.js';
import { DEFAULT_MAX_IN_FLIGHT } from '../src/sink/batching.js';
import type { Point } from '../src/points.js';
import { SCHEMA } from '../src/schema/schema.js';
import { createSink, SinkError, type Sink, type WriteResult } from '../src/sink/index.js';
import { startInfluxV1, startVictoriaMetrics } from '../test/helpers/servers.js';
import { writeCalls } from './lib/points.js';
import { quick, report, round, target } from './lib/results.js';
import { bareV1, bareV2, prepareRaw, RETRIES, retried, type Target as RunTarget } from './lib/sink-references.js';

const envNumber = (name: string): number | undefined => (process.env[name] ? Number(process.env[name]) : undefined);
const WRITERS = envNumber('BENCH_WRITERS') ?? 4;
const BATCH = envNumber('BENCH_BATCH') ?? 5000;
const BARE_IN_FLIGHT = envNumber('BENCH_BARE_IN_FLIGHT') ?? 4;
const GZIP = envNumber('BENCH_GZIP') ?? 1;
const SHIPPED_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

type Kind = 'v1' | 'v2';
type Role = 'bare' | 'sink' | 'raw' | 'sink-default' | 'sink-base';
/** BENCH_BASELINE: a bundle of this bench built from an older tree; its sink runs as `sink-base` in the same pairs. */
const BASELINE = process.env.BENCH_BASELINE;
const ROLES: Role[] = (
  process.env.BENCH_ROLES?.split(',') ?? ['bare', 'sink', 'raw', 'sink-default', ...(BASELINE ? ['sink-base'] : [])]
).filter((role): role is Role => role !== 'sink-base' || BASELINE !== undefined) as Role[];
type Measurement = {
  seconds: number;
  pointsPerSec: number;
  peakRssMb: number;
  retries: number;
  /** CPU of the whole process (every thread: gzip runs on libuv's pool) per point, in µs. */
  cpuUsPerPoint: number;
  /** GC pauses ÷ the event loop's busy time (performance.eventLoopUtilization's `active`). */
  gcShare: number;
  /** The load average just after the run. */
  load?: string;
};

const inFlightOf = (kind: Kind): number =>
  envNumber('BENCH_IN_FLIGHT') ?? (kind === 'v2' ? DEFAULT_MAX_IN_FLIGHT : DEFAULT_MAX_IN_FLIGHT_V1);

async function ours(kind: Kind, url: string, total: number): Promise<void> {
  const common = {
    deadLetterPath: join(tmpdir(), `bench-dead-${process.pid}.jsonl`),
    maxInFlight: envNumber('BENCH_IN_FLIGHT'),
    batchSize: BATCH,
    schema: SCHEMA,
  };
  const sink =
    kind === 'v2'
      ? createSink({
          type: 'influx-v2',
          url,
          token: 'x',
          org: 'org',
          bucket: 'bucket',
          backslashes: 'escaped',
          gzipLevel: GZIP,
          ...common,
        })
      : createSink({ type: 'influx-v1', url, database: 'bench', ...common });
  const calls = writeCalls(total);
  let written = 0;
  // Jobs side by side, each passing its next span only once the previous one is confirmed, as the collector does.
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let next = calls.next(); !next.done; next = calls.next()) {
        const result = await writeRetrying(sink, next.value); // not `written += await …`: reads `written` first
        written += result.written;
      }
    }),
  );
  await sink.close();
  if (written !== total) throw new Error(`sink confirmed ${written} of ${total}`);
}

/** Retries a retryable failure (a loaded server's 500 timeout), as a collector job retries its span. */
async function writeRetrying(sink: Sink, points: Point[]): Promise<WriteResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await sink.write(points);
    } catch (err) {
      if (!(err instanceof SinkError && err.retryable) || attempt === RETRIES) throw err;
      retried.count++;
    }
  }
}

/** In the child: prepares (raw only, untimed), then times the run. */
async function child(kind: Kind, role: Role, url: string, total: number): Promise<void> {
  const t: RunTarget = {
    kind,
    url,
    total,
    batch: BATCH,
    inFlight: role === 'bare' ? BARE_IN_FLIGHT : inFlightOf(kind),
    gzipLevel: GZIP,
  };
  const raw = role === 'raw' ? prepareRaw(t) : undefined;
  let gcMs = 0;
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  gcs.observe({ entryTypes: ['gc'] });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const loopBefore = performance.eventLoopUtilization();
  if (raw) await raw.start();
  else if (role === 'bare') await (kind === 'v2' ? bareV2(t) : bareV1(t));
  else await ours(kind, url, total);
  const loop = performance.eventLoopUtilization(loopBefore);
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setImmediate(resolve)); // the observer's last entries
  gcs.disconnect();
  process.stdout.write(
    `${JSON.stringify({
      seconds,
      pointsPerSec: total / seconds,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      retries: retried.count,
      cpuUsPerPoint: (cpu.user + cpu.system) / total,
      gcShare: gcMs / loop.active,
    })}\n`,
  );
}

/** One run in a child process against a fresh server, so no run inherits another's data or heap. */
async function measure(kind: Kind, role: Role, total: number): Promise<Measurement> {
  const server = kind === 'v2' ? await startVictoriaMetrics() : await startInfluxV1();
  try {
    if (kind === 'v1') await (server as Awaited<ReturnType<typeof startInfluxV1>>).query('CREATE DATABASE bench');
    const shipped = new Set(SHIPPED_FLAGS);
    const execArgv = role === 'sink-default' ? process.execArgv.filter((a) => !shipped.has(a)) : process.execArgv;
    const [script, childRole] = role === 'sink-base' ? [BASELINE!, 'sink'] : [fileURLToPath(import.meta.url), role];
    const args = [...execArgv, script, '--child', kind, childRole, server.url, String(total)];
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
    if (code !== 0) throw new Error(`${kind} ${role} run exited with ${code}`);
    return JSON.parse(out.trim()) as Measurement;
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function benchKind(kind: Kind, total: number, pairs: number) {
  const server = kind === 'v2' ? 'VictoriaMetrics' : 'InfluxDB 1.6.7';
  const loadBefore = load();
  const runs: Array<Record<Role, Measurement>> = [];
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 === 0 ? ROLES : [...ROLES].reverse();
    const pair = {} as Record<Role, Measurement>;
    for (const role of order) pair[role] = { ...(await measure(kind, role, total)), load: load() };
    runs.push(pair);
    const r = (a: Role, b: Role) =>
      pair[a] && pair[b] ? (pair[a].pointsPerSec / pair[b].pointsPerSec).toFixed(2) : '-';
    const perRole = ROLES.map((role) => {
      const m = pair[role];
      const retries = m.retries ? ` (${m.retries} retries)` : '';
      const cpu = `${m.cpuUsPerPoint?.toFixed(1)} µs/pt GC ${((m.gcShare ?? 0) * 100).toFixed(0)}%`;
      return `${role} ${Math.round(m.pointsPerSec)}/s ${m.peakRssMb.toFixed(0)} MB ${cpu}${retries}`;
    });
    console.log(
      `  ${kind} pair ${p + 1}: ${perRole.join(', ')}; ` +
        `sink÷bare ${r('sink', 'bare')}, sink÷raw ${r('sink', 'raw')}, default÷bare ${r('sink-default', 'bare')}, ` +
        `base÷raw ${r('sink-base', 'raw')}`,
    );
  }
  const loadAfter = load();
  const has = (role: Role): boolean => ROLES.includes(role);
  const ratio = (a: Role, b: Role) =>
    has(a) && has(b) ? round(median(runs.map((pair) => pair[a].pointsPerSec / pair[b].pointsPerSec))) : undefined;
  const summary = Object.fromEntries(
    ROLES.map((role) => [
      role,
      {
        pointsPerSec: round(median(runs.map((x) => x[role].pointsPerSec))),
        peakRssMb: round(Math.max(...runs.map((x) => x[role].peakRssMb))),
        cpuUsPerPoint: round(median(runs.map((x) => x[role].cpuUsPerPoint))),
        gcShare: round(median(runs.map((x) => x[role].gcShare))),
      },
    ]),
  ) as Record<Role, { pointsPerSec: number; peakRssMb: number; cpuUsPerPoint: number; gcShare: number }>;
  for (const role of ROLES)
    console.log(
      `  ${kind} ${role.padEnd(12)} → ${server}: ${String(summary[role].pointsPerSec).padStart(7)} points/s ` +
        `(median), peak RSS ${summary[role].peakRssMb} MB (max), CPU ${summary[role].cpuUsPerPoint} µs/point, ` +
        `GC ${(summary[role].gcShare * 100).toFixed(1)}% of busy (medians)`,
    );
  const ratios = {
    sinkOverBare: ratio('sink', 'bare'),
    sinkOverRaw: ratio('sink', 'raw'),
    sinkDefaultOverBare: ratio('sink-default', 'bare'),
    sinkDefaultOverSink: ratio('sink-default', 'sink'),
    baseOverRaw: ratio('sink-base', 'raw'),
    sinkOverBase: ratio('sink', 'sink-base'),
  };
  console.log(
    `  ${kind} medians of ${pairs} pairs: ${JSON.stringify(ratios)}; load average before ${loadBefore}, ` +
      `after ${loadAfter}`,
  );
  const figures = {
    server,
    inFlight: inFlightOf(kind),
    bareInFlight: BARE_IN_FLIGHT,
    ...summary,
    ratios,
    loadBefore,
    loadAfter,
    pairs: runs,
  };
  const targets = [];
  if (ratios.sinkOverBare !== undefined)
    targets.push(target(`${kind} sink ÷ bare points/s (same flags, median of pairs)`, ratios.sinkOverBare, 'min', 1.0));
  if (ratios.sinkOverRaw !== undefined)
    targets.push(target(`${kind} sink ÷ raw POST points/s (median of pairs)`, ratios.sinkOverRaw, 'min', 0.6));
  if (has('sink')) {
    targets.push(
      target(`${kind} sink client CPU per point (gzip included)`, summary.sink.cpuUsPerPoint, 'max', 6, ' µs'),
    );
    targets.push(target(`${kind} sink GC share of busy time`, summary.sink.gcShare, 'max', 0.15));
    targets.push(target(`${kind} sink peak RSS (shipped flags)`, summary.sink.peakRssMb, 'max', 150, ' MB'));
  }
  if (has('sink-default')) {
    const rss = summary['sink-default'].peakRssMb;
    targets.push(target(`${kind} sink peak RSS (node's default flags)`, rss, 'max', 150, ' MB'));
  }
  return { figures, targets };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1] as Kind, args[2] as Role, args[3]!, Number(args[4]));
  const total = envNumber('BENCH_POINTS') ?? (quick() ? 200_000 : 1_000_000);
  const pairs = envNumber('BENCH_PAIRS') ?? 3;
  const kinds = (process.env.BENCH_KINDS ?? 'v2,v1').split(',') as Kind[];
  console.log(
    `sink throughput: ${total} points, ${WRITERS} writers, batch ${BATCH}, ${pairs} pairs; node flags: ` +
      `${process.execArgv.join(' ') || '(none)'}; sink-default drops ${SHIPPED_FLAGS.join(' ') || '(none)'}`,
  );
  const figures: Record<string, unknown> = {
    points: total,
    writers: WRITERS,
    batch: BATCH,
    pairs,
    nodeFlags: process.execArgv,
    shippedFlags: SHIPPED_FLAGS,
  };
  const targets = [];
  for (const kind of kinds) {
    const result = await benchKind(kind, total, pairs);
    figures[kind] = result.figures;
    targets.push(...result.targets);
  }
  report('sinkThroughput', figures, targets);
}

await main();
