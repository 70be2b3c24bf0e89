import { collectDefaultMetrics, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/loader.js';
import { PROMETHEUS_CONTENT_TYPE } from '../../src/telemetry/prometheus.js';
import { startHealthServer, startTelemetryServer, type TelemetryServer } from '../../src/telemetry/server.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { SetJobFacts } from '../helpers/job-facts.js';

const HOUR = 3_600_000;
const MINIMAL = {
  api: { baseUrl: 'http://127.0.0.1:1', token: 't' },
  accounts: ['acme'],
  sink: { type: 'file', path: '-' },
};
let server: TelemetryServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(telemetry: Telemetry, jobMaxLagMs?: Record<string, number>) {
  server = await startTelemetryServer({
    telemetry,
    port: 0,
    maxLagMs: 2 * HOUR,
    ...(jobMaxLagMs ? { jobMaxLagMs } : {}),
  });
  return server;
}

describe('telemetry server', () => {
  it('/healthz answers 200 with every job when all lags are under their threshold', async () => {
    const clock = new ManualClock(0);
    const t = new Telemetry({ clock });
    const jobs = SetJobFacts.watchedBy(t, clock);
    jobs.lag('metrics/acme', 60_000);
    jobs.lag('statistic/acme/countries', 90 * 60_000);
    const { url } = await serve(t);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      jobs: {
        'metrics/acme': { lagSeconds: 60, maxLagSeconds: 7200, ok: true },
        'statistic/acme/countries': { lagSeconds: 5400, maxLagSeconds: 7200, ok: true },
      },
    });
  });

  it('/healthz answers 503 with a reason per lagging job, honouring per-job thresholds', async () => {
    const clock = new ManualClock(0);
    const t = new Telemetry({ clock });
    const jobs = SetJobFacts.watchedBy(t, clock);
    jobs.lag('metrics/acme', 60_000);
    jobs.lag('statistic/acme/countries', 90 * 60_000);
    jobs.lag('streamstat/acme/regions', 60_000);
    const { url } = await serve(t, { 'statistic/acme/countries': HOUR });
    clock.advance(3 * HOUR); // nobody reported since: every lag grew past 2 h
    jobs.lag('metrics/acme', 30_000);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as {
      status: string;
      reasons: Record<string, string>;
      jobs: Record<string, { ok: boolean }>;
    };
    expect(body.status).toBe('lagging');
    expect(Object.keys(body.reasons).sort()).toEqual(['statistic/acme/countries', 'streamstat/acme/regions']);
    expect(body.reasons['statistic/acme/countries']).toBe('lag 16200 s exceeds the limit of 3600 s');
    expect(body.jobs['metrics/acme']?.ok).toBe(true);
  });

  it('/metrics serves the Prometheus text; other paths 404, other methods 405', async () => {
    const t = new Telemetry({ clock: new ManualClock(0) });
    t.apiCall('dvr', 500);
    const { url } = await serve(t);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(PROMETHEUS_CONTENT_TYPE);
    const text = await res.text();
    const calls = 'cdn_collector_api_calls_total';
    expect(text).toMatch(new RegExp(`^# TYPE ${calls} counter\n${calls}\\{api="dvr",status="500"\\} 1$`, 'm'));
    expect(text).toMatch(/^# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes \d+$/m);
    expect((await fetch(`${url}/`)).status).toBe(404);
    expect((await fetch(`${url}/metrics/extra`)).status).toBe(404);
    expect((await fetch(`${url}/healthz`, { method: 'POST' })).status).toBe(405);
  });

  it("/metrics serves prom-client's default process and runtime metrics, each once, and the build info", async () => {
    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
    const typesOf = (text: string) => [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    const { url } = await serve(new Telemetry({ clock: new ManualClock(0) }));
    const served = typesOf(await (await fetch(`${url}/metrics`)).text());
    const runtime = served.filter((type) => !type.startsWith('cdn_collector_'));
    expect(runtime.sort()).toEqual(typesOf(await defaults.metrics()).sort());
    expect(runtime).toContain('nodejs_gc_duration_seconds histogram');
    expect(served).toContain('cdn_collector_build_info gauge');
  });

  it('reports a port already in use as an error', async () => {
    const first = await serve(new Telemetry());
    await expect(
      startTelemetryServer({ telemetry: new Telemetry(), port: first.port, maxLagMs: HOUR }),
    ).rejects.toThrow(/EADDRINUSE/);
  });

  it('startHealthServer takes the http section of the configuration, per-job limits included', async () => {
    const clock = new ManualClock(0);
    const telemetry = new Telemetry({ clock });
    SetJobFacts.watchedBy(telemetry, clock)
      .lag('dvr/acme', 5_000)
      .lag('statistic/acme/total', 2 * HOUR);
    const { http } = parseConfig(
      { ...MINIMAL, http: { port: 0, maxLag: '1s', jobMaxLag: { 'statistic/acme/total': '3h' } } },
      {},
    );
    server = await startHealthServer({ telemetry }, http);
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as {
      reasons: Record<string, string>;
      jobs: Record<string, { ok: boolean; maxLagSeconds: number }>;
    };
    expect(body.reasons).toEqual({ 'dvr/acme': 'lag 5 s exceeds the limit of 1 s' });
    expect(body.jobs['statistic/acme/total']).toMatchObject({ ok: true, maxLagSeconds: 3 * 3600 });
  });
});
