import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ManualClock } from '../../src/clock.js';
import type { Runtime } from '../../src/app/runtime.js';
import { loadConfigFile } from '../../src/config/loader.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import type { CollectJob, Span } from '../../src/sources/common/types.js';
import { startTelemetryServer } from '../../src/telemetry/server.js';
import { formatMinute, HOUR, MINUTE } from '../../src/time.js';
import { runtimeFor } from '../helpers/collector.js';
import { setAsideByJob } from '../helpers/fake-job.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';

const CLI = join(import.meta.dirname, '../../bin/cdn-collector.js');

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * One metrics window whose 200 body is JSON that does not fit the schema (a string where a number belongs), served by
 * a proxy in front of the simulator. The collector must set that span aside after ONE call, collect and confirm the
 * windows after it in the same pass, report it (status --json, /healthz, /metrics), skip it on later passes until its
 * slow retry is due, and collect it once the server heals.
 */
describe('a poisoned window does not block its job', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR + 3 * MINUTE);
  const dir = mkdtempSync(join(tmpdir(), 'poison-'));
  const configPath = join(dir, 'collector.yaml');
  let sim: Simulator;
  let proxy: LoopbackServer;
  let poisoned: Span | undefined;
  let healed = false;
  /** Calls per requested `start` of account acme's aggregate. */
  const callsAt = new Map<string, number>();
  const runtimes: Runtime[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ clock, quotas: NO_QUOTAS });
    proxy = await loopbackServer(async (req, res) => {
      const url = new URL(req.url ?? '/', sim.url);
      const upstream = await fetch(url, { headers: { 'cdn-auth-token': String(req.headers['cdn-auth-token'] ?? '') } });
      let text = await upstream.text();
      const start = url.searchParams.get('start') ?? '';
      if (url.pathname === '/app/metrics/v1/' && url.searchParams.get('account') === 'acme') {
        callsAt.set(start, (callsAt.get(start) ?? 0) + 1);
        if (!healed && poisoned && start === formatMinute(poisoned.from)) {
          const body = JSON.parse(text) as { data: Array<Record<string, unknown>> };
          const name = Object.keys(body.data[0]!)[0]!;
          body.data[0]![name] = 'not a number';
          text = JSON.stringify(body);
        }
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
    });
    writeFileSync(
      configPath,
      stringify({
        api: { baseUrl: proxy.url, token: sim.token },
        accounts: ['acme'],
        jobs: {
          metrics: { byResource: false },
          statistic: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
        },
        sink: { type: 'file', path: join(dir, 'out.lp') },
        state: { dir: join(dir, 'state') },
        log: { level: 'error' },
      }),
    );
  });

  afterAll(async () => {
    // A collector stuck retrying the poisoned window (the bug) gives up once its deadline has passed.
    clock.advance(HOUR);
    for (const rt of runtimes) await rt.close();
    await proxy?.close();
    await sim?.close();
  });

  const open = async () => {
    const rt = await runtimeFor(loadConfigFile(configPath), clock);
    runtimes.push(rt);
    return { rt, job: rt.collector.jobs.find((j) => j.key === 'metrics/acme')! };
  };
  /** A pass; fails as soon as the limiter schedules a retry (on the frozen clock it would wait for ever). */
  const pass = (rt: Runtime, job: CollectJob) =>
    new Promise<Awaited<ReturnType<Runtime['collector']['runOnce']>>>((resolve, reject) => {
      const watch = setInterval(() => {
        if (rt.telemetry.samples().some((s) => s.kind === 'api_retries')) reject(new Error('a call was retried'));
      }, 20);
      rt.collector
        .runOnce(job, 'live')
        .then(resolve, reject)
        .finally(() => clearInterval(watch));
    });
  const status = async () => {
    const out = await cli(['status', '-c', configPath, '--json']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as {
      jobs: Array<{
        key: string;
        watermark: string;
        setAside: Array<{ from: string; reason: string; nextRetryAt: string }>;
      }>;
    };
    return report.jobs.find((j) => j.key === 'metrics/acme')!;
  };

  it('sets the span aside after one call, goes on, reports it, skips it until the slow retry collects it', async () => {
    const { rt, job } = await open();
    const planned = rt.collector.pending(job);
    expect(planned.length).toBeGreaterThanOrEqual(5);
    poisoned = planned[2]!;
    const whole = { from: planned[0]!.from, to: planned.at(-1)!.to };

    const first = await pass(rt, job);
    expect(first.error).toBeUndefined();
    expect(first).toMatchObject({ spans: planned.length - 1, setAside: 1 });
    expect(rt.store.missing(job.key, whole.from, whole.to)).toEqual([poisoned]);
    expect(callsAt.get(formatMinute(poisoned.from))).toBe(1);
    // The watermark stays honest: it stops at the hole.
    expect(rt.store.watermark(job.key)).toBe(poisoned.from);

    // Listed while the daemon holds the state lock: status takes none.
    const listed = await status();
    expect(listed.watermark).toBe(new Date(poisoned.from).toISOString());
    expect(listed.setAside).toHaveLength(1);
    expect(listed.setAside[0]!.from).toBe(new Date(poisoned.from).toISOString());
    expect(listed.setAside[0]!.reason).toMatch(/malformed response: .*number/i);
    expect(Date.parse(listed.setAside[0]!.nextRetryAt)).toBe(clock.now() + 10 * MINUTE);
    const text = await cli(['status', '-c', configPath]);
    expect(text.stdout).toMatch(
      /metrics\/acme +watermark \S+ +set aside: 1\n +\S+ +attempts 1, next retry \S+: .*Expected number/,
    );

    // /healthz lists it without going 503 for it (the job's lag would exceed 30 min if measured from the hole).
    const health = await startTelemetryServer({ telemetry: rt.telemetry, maxLagMs: 30 * MINUTE });
    try {
      const res = await fetch(`${health.url}/healthz`);
      const body = (await res.json()) as { status: string; setAside?: Record<string, number> };
      expect(body.setAside).toEqual({ 'metrics/acme': 1 });
      expect(res.status).toBe(200);
      const metrics = await (await fetch(`${health.url}/metrics`)).text();
      expect(metrics).toContain('cdn_collector_spans_set_aside{collector_job="metrics/acme"} 1');
    } finally {
      await health.close();
    }

    // A restarted collector remembers it: later passes before the retry is due spend no call on it.
    await rt.close();
    runtimes.pop();
    const second = await open();
    expect(setAsideByJob(second.rt.collector)).toEqual({ 'metrics/acme': 1 });
    clock.advance(5 * MINUTE);
    expect(second.rt.collector.pending(second.job).some((s) => s.from === poisoned!.from)).toBe(false);
    expect((await pass(second.rt, second.job)).error).toBeUndefined();
    expect(callsAt.get(formatMinute(poisoned.from))).toBe(1);

    // The server heals; once the retry is due, the pass collects it and the list empties.
    healed = true;
    clock.advance(5 * MINUTE);
    const retried = await pass(second.rt, second.job);
    expect(retried).toMatchObject({ setAside: 0 });
    expect(retried.error).toBeUndefined();
    expect(callsAt.get(formatMinute(poisoned.from))).toBe(2);
    expect(second.rt.store.missing(job.key, whole.from, whole.to)).toEqual([]);
    expect(setAsideByJob(second.rt.collector)).toEqual({});
    await second.rt.aside.flush();
    expect((await status()).setAside).toEqual([]);
  });

  it('a backfill that set a span aside says so and exits 1; the windows around it are collected', async () => {
    const base = Math.floor(clock.now() / HOUR) * HOUR - 6 * HOUR;
    poisoned = { from: base + 10 * MINUTE, to: base + 20 * MINUTE };
    healed = false;
    const backfillConfig = join(dir, 'backfill.yaml');
    writeFileSync(
      backfillConfig,
      stringify({
        api: { baseUrl: proxy.url, token: sim.token },
        accounts: ['acme'],
        jobs: {
          metrics: { byResource: false },
          statistic: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
        },
        sink: { type: 'file', path: join(dir, 'backfill.lp') },
        state: { dir: join(dir, 'state-backfill') },
        log: { level: 'error' },
      }),
    );
    const range = ['--from', new Date(base).toISOString(), '--to', new Date(base + 30 * MINUTE).toISOString()];
    const out = await cli(['backfill', '-c', backfillConfig, ...range, '--json']);
    expect(JSON.parse(out.stdout)).toMatchObject({ setAside: 1 });
    expect(out.code).toBe(1);
    expect(callsAt.get(formatMinute(poisoned.from))).toBe(1);
    for (const t of [base, base + 20 * MINUTE]) expect(callsAt.get(formatMinute(t))).toBe(1);
  });
});
