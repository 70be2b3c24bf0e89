/**
 * Sink benchmark: 1 M points into VictoriaMetrics' /api/v2/write, through the bare WriteApi of
 * @influxdata/influxdb-client (everything queued, then close()) and through our v2 sink (confirmed batches, 10k points
 * per write call). Each run is a child process so its peak RSS is its own. Target: sink ≥ 0.9 × bare points/s, sink
 * peak RSS ≤ 150 MB.
 *
 * Run: npx esbuild bench/sink-throughput.ts --bundle --platform=node --format=esm --packages=external \
 *        --outfile=node_modules/.cache/bench/sink-throughput.mjs && node node_modules/.cache/bench/sink-throughput.mjs [points]
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InfluxDB, Point as ClientPoint } from '@influxdata/influxdb-client';
import type { Point } from '../src/points.js';
import { createSink } from '../src/sink/index.js';
import { startVictoriaMetrics } from '../test/helpers/servers.js';
import { testSchema } from '../test/sink/schema.js';

/** Points per write call (the collector passes one span's points: tens of thousands at most). */
const CHUNK = Number(process.env.BENCH_CHUNK ?? 10_000);
const T0 = Date.UTC(2024, 0, 1);
const RESOURCES = ['www', 'video cdn', 'static,assets', 'api=v2', 'img', 'Видео'];
const schema = testSchema({ traffic: { bytes: 'integer', requests: 'integer', ratio: 'float' } });

/** Point i of the run: 6 resources × 40 countries per minute, values derived from i. */
function pointAt(i: number): Point {
  return {
    measurement: 'traffic',
    tags: { resource: RESOURCES[i % RESOURCES.length]!, country: `c${Math.floor(i / RESOURCES.length) % 40}`, account: 'acme' },
    fields: { bytes: i * 1013, requests: i % 977, ratio: (i % 1000) / 1000 },
    time: T0 + Math.floor(i / 240) * 60_000,
  };
}

function* chunks(total: number): Generator<Point[]> {
  for (let from = 0; from < total; from += CHUNK) {
    yield Array.from({ length: Math.min(CHUNK, total - from) }, (_, k) => pointAt(from + k));
  }
}

async function runBare(url: string, total: number): Promise<void> {
  const writeApi = new InfluxDB({ url, token: 'x' }).getWriteApi('org', 'bucket', 's', { batchSize: 5000 });
  for (const chunk of chunks(total)) {
    for (const p of chunk) {
      const point = new ClientPoint(p.measurement).timestamp(p.time / 1000);
      for (const [k, v] of Object.entries(p.tags)) point.tag(k, v);
      point.intField('bytes', p.fields.bytes).intField('requests', p.fields.requests).floatField('ratio', p.fields.ratio);
      writeApi.writePoint(point);
    }
  }
  await writeApi.close();
}

async function runSink(url: string, total: number): Promise<void> {
  const sink = createSink({ type: 'influx-v2', url, token: 'x', org: 'org', bucket: 'bucket', deadLetterPath: join(tmpdir(), 'bench-dead.jsonl'), schema,
    maxInFlight: process.env.BENCH_IN_FLIGHT ? Number(process.env.BENCH_IN_FLIGHT) : undefined,
    batchSize: process.env.BENCH_BATCH ? Number(process.env.BENCH_BATCH) : undefined });
  let written = 0;
  for (const chunk of chunks(total)) written += (await sink.write(chunk)).written;
  await sink.close();
  if (written !== total) throw new Error(`sink confirmed ${written} of ${total}`);
}

async function child(mode: string, url: string, total: number): Promise<void> {
  const started = performance.now();
  await (mode === 'bare' ? runBare(url, total) : runSink(url, total));
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(JSON.stringify({ mode, seconds, pointsPerSec: total / seconds, peakRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
}

type Measurement = { pointsPerSec: number; peakRssMb: number };

/** One run in a child process against a fresh VictoriaMetrics, so neither run inherits the other's data or heap. */
async function measure(mode: string, total: number): Promise<Measurement> {
  const vm = await startVictoriaMetrics();
  try {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, vm.url, String(total)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
    if (code !== 0) throw new Error(`${mode} run exited with ${code}`);
    return JSON.parse(out.trim()) as Measurement;
  } finally {
    await vm.stop();
  }
}

/** Best of `rounds` alternating runs: the machine is shared with the server, so single runs are noisy. */
async function best(total: number, rounds: number): Promise<Record<'bare' | 'sink', Measurement>> {
  const results: Record<'bare' | 'sink', Measurement[]> = { bare: [], sink: [] };
  for (let r = 0; r < rounds; r++) for (const mode of ['bare', 'sink'] as const) results[mode].push(await measure(mode, total));
  const pick = (runs: Measurement[]): Measurement => ({
    pointsPerSec: Math.max(...runs.map((m) => m.pointsPerSec)),
    peakRssMb: Math.max(...runs.map((m) => m.peakRssMb)),
  });
  return { bare: pick(results.bare), sink: pick(results.sink) };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, args[2]!, Number(args[3]));
  const total = Number(args[0] ?? 1_000_000);
  const { bare, sink } = await best(total, Number(process.env.BENCH_ROUNDS ?? 3));
  const ratio = sink.pointsPerSec / bare.pointsPerSec;
  const row = (name: string, r: Measurement) => `${name.padEnd(5)} ${Math.round(r.pointsPerSec).toString().padStart(9)} points/s  peak RSS ${r.peakRssMb.toFixed(0)} MB`;
  console.log(`${total} points into VictoriaMetrics /api/v2/write (best throughput, worst RSS of the rounds)\n${row('bare', bare)}\n${row('sink', sink)}`);
  console.log(`sink/bare throughput ${ratio.toFixed(2)} (target ≥ 0.9), sink peak RSS ${sink.peakRssMb.toFixed(0)} MB (target ≤ 150)`);
  if (ratio < 0.9 || sink.peakRssMb > 150) process.exitCode = 1;
}

await main();
