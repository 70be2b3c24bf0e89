/**
 * Sink throughput: 1 M points of the real schema (bench/lib/points.ts: 1,000 resources, 200 streams, the collector's
 * chunks) through
 * - v2: our influx-v2 sink into VictoriaMetrics, and the official client's bare WriteApi (the reference);
 * - v1: our influx-v1 sink into InfluxDB 1.6.7, and the official client's line protocol (`Point.toLineProtocol`)
 *   POSTed to /write in 5,000-line batches without waiting, as WriteApi does (1.6 has no /api/v2/write for WriteApi).
 * Our sinks are fed as the collector feeds them: WRITERS jobs side by side, each awaiting its confirmed `write` before
 * passing its next span's points. Each run is a child process against a fresh server, so peak RSS is its own.
 * Our sinks run with the collector's node flags (bin/cdn-collector.js's shebang), the bare client with node's defaults.
 * Target per target: sink ≥ 0.9 × bare points/s, sink peak RSS ≤ 150 MB.
 *
 * Run: node bench/run.js sink-throughput [--quick]; env BENCH_POINTS, BENCH_ROUNDS, BENCH_WRITERS, BENCH_BATCH,
 * BENCH_IN_FLIGHT, BENCH_GZIP (gzip level of our v2 sink).
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import type { Point } from '../src/points.js';
import { SCHEMA } from '../src/schema.js';
import { createSink } from '../src/sink/index.js';
import { startInfluxV1, startVictoriaMetrics } from '../test/helpers/servers.js';
import { writeCalls } from './lib/points.js';
import { quick, report, round, target } from './lib/results.js';

const WRITERS = Number(process.env.BENCH_WRITERS ?? 4);
const BARE_BATCH = 5000;
const envNumber = (name: string): number | undefined => (process.env[name] ? Number(process.env[name]) : undefined);

// The official client is loaded only by the bare runs: the collector does not load it, so our runs' RSS must not
// include it.
type Client = typeof import('@influxdata/influxdb-client');
const loadClient = (): Promise<Client> => import('@influxdata/influxdb-client');

/** The official client's Point for ours, typed by the schema as our encoder types it. */
function clientPoint(client: Client, p: Point): InstanceType<Client['Point']> {
  const point = new client.Point(p.measurement).timestamp(p.time / 1000);
  for (const key in p.tags) point.tag(key, p.tags[key]!);
  const fields = SCHEMA.get(p.measurement)!.fields;
  for (const key in p.fields) {
    const value = p.fields[key] as number;
    if (fields[key]!.type === 'integer') point.intField(key, value);
    else point.floatField(key, value);
  }
  return point;
}

/**
 * The bare WriteApi, timed until the server has answered every line. `close()` alone is no end mark: it waits only
 * for the batch still in its buffer (none when the total is a multiple of the batch size), not for the requests it
 * already sent — measured: 0 of 200,000 lines confirmed when close() resolved, so timing it measured encoding only.
 */
async function bareV2(url: string, total: number): Promise<void> {
  let answered = 0;
  let failed = 0;
  let allAnswered!: () => void;
  const done = new Promise<void>((resolve) => (allAnswered = resolve));
  const count = (lines: string[], ok: boolean) => {
    answered += lines.length;
    if (!ok) failed += lines.length;
    if (answered === total) allAnswered();
  };
  const client = await loadClient();
  // All requests go out at once and queue at the server, so the default 10 s request timeout would fail late ones.
  const writeApi = new client.InfluxDB({ url, token: 'x', timeout: 600_000 }).getWriteApi('org', 'bucket', 's', {
    batchSize: BARE_BATCH,
    maxRetries: 0, // a failure counts as answered (and fails the run) instead of retrying in the background
    writeSuccess: (lines) => count(lines, true),
    writeFailed: (_err, lines) => count(lines, false),
  });
  for (const chunk of writeCalls(total)) for (const p of chunk) writeApi.writePoint(clientPoint(client, p));
  await writeApi.close();
  await done;
  if (failed > 0) throw new Error(`bare WriteApi: ${failed} of ${total} lines failed`);
}

async function bareV1(url: string, total: number): Promise<void> {
  const client = await loadClient();
  const agent = new Agent({ connections: 8 });
  const sent: Promise<void>[] = [];
  const post = (lines: string[]) =>
    sent.push(
      request(`${url}/write?db=bench&precision=s`, { method: 'POST', body: lines.join('\n'), dispatcher: agent }).then(async (res) => {
        const text = await res.body.text();
        if (res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}: ${text}`);
      }),
    );
  let lines: string[] = [];
  for (const chunk of writeCalls(total)) {
    for (const p of chunk) {
      lines.push(clientPoint(client, p).toLineProtocol()!);
      if (lines.length === BARE_BATCH) post(lines.splice(0));
    }
  }
  if (lines.length > 0) post(lines);
  await Promise.all(sent);
  await agent.close();
}

async function ours(kind: 'v1' | 'v2', url: string, total: number): Promise<void> {
  const common = {
    deadLetterPath: join(tmpdir(), `bench-dead-${process.pid}.jsonl`),
    maxInFlight: envNumber('BENCH_IN_FLIGHT'),
    batchSize: envNumber('BENCH_BATCH'),
  };
  const sink =
    kind === 'v2'
      ? createSink({ type: 'influx-v2', url, token: 'x', org: 'org', bucket: 'bucket', backslashes: 'escaped', gzipLevel: envNumber('BENCH_GZIP'), ...common })
      : createSink({ type: 'influx-v1', url, database: 'bench', ...common });
  const calls = writeCalls(total);
  let written = 0;
  // Jobs side by side, each passing its next span only once the previous one is confirmed, as the collector does.
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let next = calls.next(); !next.done; next = calls.next()) {
        const result = await sink.write(next.value);
        written += result.written;
      }
    }),
  );
  await sink.close();
  if (written !== total) throw new Error(`sink confirmed ${written} of ${total}`);
}

const MODES = {
  'bare-v2': (url: string, n: number) => bareV2(url, n),
  'sink-v2': (url: string, n: number) => ours('v2', url, n),
  'bare-v1': (url: string, n: number) => bareV1(url, n),
  'sink-v1': (url: string, n: number) => ours('v1', url, n),
};
type Mode = keyof typeof MODES;

async function child(mode: Mode, url: string, total: number): Promise<void> {
  const started = performance.now();
  await MODES[mode](url, total);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(JSON.stringify({ seconds, pointsPerSec: total / seconds, peakRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
}

type Measurement = { seconds: number; pointsPerSec: number; peakRssMb: number };

/** One run in a child process against a fresh server, so no run inherits another's data or heap. */
async function measure(mode: Mode, total: number): Promise<Measurement> {
  const server = mode.endsWith('v2') ? await startVictoriaMetrics() : await startInfluxV1();
  try {
    if (!mode.endsWith('v2')) await (server as Awaited<ReturnType<typeof startInfluxV1>>).query('CREATE DATABASE bench');
    // Our sinks run with the collector's node flags (bench/run.js passes them); the bare client as users run it.
    const shipped = new Set((process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean));
    const execArgv = mode.startsWith('bare') ? process.execArgv.filter((a) => !shipped.has(a)) : process.execArgv;
    const args = [...execArgv, fileURLToPath(import.meta.url), '--child', mode, server.url, String(total)];
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
    if (code !== 0) throw new Error(`${mode} run exited with ${code}`);
    return JSON.parse(out.trim()) as Measurement;
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1] as Mode, args[2]!, Number(args[3]));
  const total = envNumber('BENCH_POINTS') ?? (quick() ? 200_000 : 1_000_000);
  const rounds = envNumber('BENCH_ROUNDS') ?? (quick() ? 1 : 2);
  const runs: Record<Mode, Measurement[]> = { 'bare-v2': [], 'sink-v2': [], 'bare-v1': [], 'sink-v1': [] };
  // Alternating rounds: the machine is shared with the server, so single runs are noisy; best throughput is reported.
  for (let r = 0; r < rounds; r++) for (const mode of Object.keys(MODES) as Mode[]) runs[mode].push(await measure(mode, total));
  const best = (mode: Mode): Measurement => ({
    seconds: Math.min(...runs[mode].map((m) => m.seconds)),
    pointsPerSec: Math.max(...runs[mode].map((m) => m.pointsPerSec)),
    peakRssMb: Math.max(...runs[mode].map((m) => m.peakRssMb)),
  });
  console.log(`sink throughput: ${total} points, ${WRITERS} writers, best of ${rounds} round(s) (worst RSS)`);
  const figures: Record<string, unknown> = { points: total, writers: WRITERS, rounds };
  const targets = [];
  for (const [kind, server] of [['v2', 'VictoriaMetrics'], ['v1', 'InfluxDB 1.6.7']] as const) {
    const bare = best(`bare-${kind}`);
    const sink = best(`sink-${kind}`);
    for (const [name, m] of [['bare', bare], ['sink', sink]] as const) {
      console.log(`  ${kind} ${name.padEnd(4)} → ${server}: ${Math.round(m.pointsPerSec).toString().padStart(7)} points/s, peak RSS ${m.peakRssMb.toFixed(0)} MB`);
    }
    figures[kind] = { server, bare: roundAll(bare), sink: roundAll(sink), all: runs };
    targets.push(target(`${kind} sink ÷ bare points/s`, sink.pointsPerSec / bare.pointsPerSec, 'min', 0.9));
    targets.push(target(`${kind} sink peak RSS`, sink.peakRssMb, 'max', 150, ' MB'));
  }
  report('sinkThroughput', figures, targets);
}

function roundAll(m: Measurement): Measurement {
  return { seconds: round(m.seconds), pointsPerSec: round(m.pointsPerSec), peakRssMb: round(m.peakRssMb) };
}

await main();
