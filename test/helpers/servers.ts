/**
 * Real database servers for integration tests: InfluxDB 1.x (`/usr/bin/influxd`) and VictoriaMetrics
 * (`/usr/bin/victoria-metrics`), each on free local ports with its own temp directories, removed on stop; and
 * Prometheus' checker `promtool` (`/usr/bin/promtool`, package prometheus).
 *
 * A missing binary fails loudly in CI; elsewhere the tests skip with a printed reason (see `serverSkipReason`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';

export const INFLUXD_BIN = process.env.INFLUXD_BIN ?? '/usr/bin/influxd';
export const VICTORIA_BIN = process.env.VICTORIA_METRICS_BIN ?? '/usr/bin/victoria-metrics';
export const PROMTOOL_BIN = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';

const START_TIMEOUT_MS = 30_000;

/**
 * Why tests that need `binary` must skip, or undefined when it is there. In CI a missing binary is an error, not a
 * skip.
 * Use as `describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)`.
 */
export function serverSkipReason(binary: string): string | undefined {
  if (existsSync(binary)) return undefined;
  const reason = `${binary} not found; integration tests that need it are skipped`;
  if (process.env.CI) throw new Error(`${reason.split(';')[0]} (required in CI)`);
  console.warn(`SKIP: ${reason}`);
  return reason;
}

/**
 * Runs promtool, which parses exposition text (`check metrics`, on stdin) and rule files (`check rules`) with
 * Prometheus' own parsers: its exit code (0 valid) and everything it printed.
 */
export function promtool(args: readonly string[], input?: string): { code: number | null; output: string } {
  const run = spawnSync(PROMTOOL_BIN, args, { input, encoding: 'utf8', timeout: 30_000 });
  if (run.error) throw run.error;
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A free TCP port on 127.0.0.1: bind port 0, read the port the OS chose, release it. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface InfluxV1Server {
  url: string;
  /** Runs InfluxQL (optionally in `db`) and returns the first statement's rows as objects keyed by column. */
  query(influxql: string, db?: string): Promise<Record<string, unknown>[]>;
  /** Raw series of the first statement (name, tags, columns, values), for SHOW/SELECT … GROUP BY. */
  series(influxql: string, db?: string): Promise<InfluxSeries[]>;
  /** The HTTP service's counters from `/debug/vars` (e.g. `writeReq`, `pointsWrittenOK`). */
  httpStats(): Promise<Record<string, number>>;
  /**
   * Kills the server (SIGKILL), waits `downtimeMs` (and `downUntil`, if given), and starts it again on the same port
   * and data directory.
   */
  restart(downtimeMs?: number, downUntil?: Promise<unknown>): Promise<void>;
  stop(): Promise<void>;
}

export interface InfluxSeries {
  name: string;
  tags?: Record<string, string>;
  columns: string[];
  values: unknown[][];
}

export async function startInfluxV1(): Promise<InfluxV1Server> {
  const dir = await mkdtemp(join(tmpdir(), 'influxd-'));
  const [httpPort, bindPort] = [await freePort(), await freePort()];
  const configPath = join(dir, 'influxdb.conf');
  await writeFile(configPath, influxConfig(dir, httpPort, bindPort));
  const url = `http://127.0.0.1:${httpPort}`;
  // The data dir outlives one process, so that restart() comes back with everything written before.
  const launch = async (): Promise<RunningProcess> => {
    const child = spawn(INFLUXD_BIN, ['run', '-config', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    return awaitReady(child, `${url}/ping`, undefined, 'influxd');
  };
  let proc = await launch().catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });

  async function series(influxql: string, db?: string): Promise<InfluxSeries[]> {
    const params = new URLSearchParams({ q: influxql, epoch: 'ms' });
    if (db) params.set('db', db);
    const res = await request(`${url}/query`, {
      method: 'POST',
      body: params.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const body = (await res.body.json()) as { results?: { error?: string; series?: InfluxSeries[] }[]; error?: string };
    const first = body.results?.[0];
    const error = body.error ?? first?.error;
    if (res.statusCode >= 300 || error) throw new Error(`InfluxQL ${influxql}: ${error ?? `HTTP ${res.statusCode}`}`);
    return first?.series ?? [];
  }

  return {
    url,
    series,
    async query(influxql, db) {
      return (await series(influxql, db)).flatMap((s) =>
        s.values.map((row) => ({ ...s.tags, ...Object.fromEntries(s.columns.map((c, i) => [c, row[i]])) })),
      );
    },
    async httpStats() {
      const res = await request(`${url}/debug/vars`);
      const vars = (await res.body.json()) as Record<string, { name?: string; values?: Record<string, number> }>;
      return Object.values(vars).find((v) => v?.name === 'httpd')?.values ?? {};
    },
    async restart(downtimeMs = 0, downUntil?: Promise<unknown>) {
      await proc.stop();
      await Promise.all([new Promise((resolve) => setTimeout(resolve, downtimeMs)), downUntil]);
      proc = await launch();
    },
    async stop() {
      await proc.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function influxConfig(dir: string, httpPort: number, bindPort: number): string {
  return `reporting-disabled = true
bind-address = "127.0.0.1:${bindPort}"
[meta]
  dir = "${join(dir, 'meta')}"
  logging-enabled = false
[data]
  dir = "${join(dir, 'data')}"
  wal-dir = "${join(dir, 'wal')}"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:${httpPort}"
  log-enabled = false
  pprof-enabled = false
[logging]
  level = "warn"
`;
}

export interface VictoriaMetricsServer {
  url: string;
  /** Series matching `match` (a series selector, e.g. `{__name__=~"cpu_.*"}`) from `/api/v1/export`. */
  export(match: string): Promise<VictoriaSeries[]>;
  /** Its counters of rows ingested, invalid rows and failed requests (those not 0), and its stderr: diagnostics. */
  health(): Promise<string>;
  stop(): Promise<void>;
}

export interface VictoriaSeries {
  /** Labels including `__name__` (`measurement_field`). */
  metric: Record<string, string>;
  values: number[];
  /** Epoch milliseconds. */
  timestamps: number[];
}

/** `flags`: more command-line flags, e.g. `-dedup.minScrapeInterval=1ms`. */
export async function startVictoriaMetrics(flags: readonly string[] = []): Promise<VictoriaMetricsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'victoria-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    VICTORIA_BIN,
    [
      `-storageDataPath=${join(dir, 'data')}`,
      `-httpListenAddr=127.0.0.1:${port}`,
      // Test points are minute-aligned and may be years old; keep them all.
      '-retentionPeriod=100y',
      // Read-after-write: no latency offset, no rollup cache.
      '-search.latencyOffset=0',
      '-search.disableCache',
      '-loggerLevel=ERROR',
      ...flags,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const proc = await awaitReady(child, `${url}/health`, dir, 'victoria-metrics');
  return {
    url,
    async export(match) {
      // Ingested rows become searchable after an in-memory buffer is flushed; force it instead of waiting.
      await (await request(`${url}/internal/force_flush`)).body.dump();
      const res = await request(`${url}/api/v1/export?${new URLSearchParams({ 'match[]': match, start: '0' })}`);
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`export ${match}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as VictoriaSeries);
    },
    async health() {
      const text = await (await request(`${url}/metrics`)).body.text();
      const counters = text
        .split('\n')
        .filter((l) => /^vm_(rows_inserted_total\{type="influx"|rows_invalid_total|http_request_errors_total)/.test(l))
        .filter((l) => l.startsWith('vm_rows_inserted') || !l.endsWith(' 0'));
      return [...counters, `stderr: ${proc.stderr()}`].join('\n');
    },
    stop: () => proc.stop(),
  };
}

interface RunningProcess {
  stop(): Promise<void>;
  /** The last few kB it wrote to stderr. */
  stderr(): string;
}

/** Polls `readyUrl` until it answers 2xx; on failure kills the child and reports its stderr. `dir` is removed on stop.
 * */
async function awaitReady(
  child: ChildProcess,
  readyUrl: string,
  dir: string | undefined,
  label: string,
): Promise<RunningProcess> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let alive = true;
  void exited.then(() => (alive = false));
  const stop = async (): Promise<void> => {
    if (alive) {
      child.kill('SIGKILL');
      await exited;
    }
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && alive) {
    try {
      const res = await request(readyUrl, { headersTimeout: 1000, bodyTimeout: 1000 });
      await res.body.dump();
      if (res.statusCode < 300) return { stop, stderr: () => stderr };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`${label} did not become ready at ${readyUrl}: ${alive ? 'timeout' : 'exited'}\n${stderr}`);
}
