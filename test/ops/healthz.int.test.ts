import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { onlyJobs } from '../helpers/collector.js';
import { freePort } from '../helpers/servers.js';
import { ensureBuilt, spawnEntry, waitFor, type Entry } from './entry.js';

/*
 * The daemon runs on the system clock, so the test shapes the config instead of time. With 1-minute metrics windows
 * read `delay` after they close and a pass every second, a job's lag (now − watermark) is a sawtooth between `delay`
 * and `delay` + 60 s that drops back each time now − delay crosses a minute. /healthz allows a job its built-in lag
 * (delay + one window) plus `maxLag` = MARGIN, never exceeded while the API answers; once it is gone, the watermark
 * stops and the lag passes that limit MARGIN after
 * the next drop would have happened. `delay` is chosen from the start time so that this drop comes DROP_AFTER_MS
 * after the start: time to spawn, run the first pass and see 200 before it, and a 503 a few seconds later.
 */
const DROP_AFTER_MS = 8_000;
const MARGIN_MS = 4_000;
const MINUTE = 60_000;
/** Wait bounds, not assertions: a slow machine that misses the first drop gets the next one a minute later. */
const WAIT_HEALTHY_MS = 30_000;
const WAIT_LAGGING_MS = 2 * MINUTE;
const WAIT_EXIT_MS = 30_000;

interface HealthBody {
  status: string;
  jobs: Record<string, { lagSeconds: number; maxLagSeconds: number; ok: boolean }>;
  reasons?: Record<string, string>;
}

describe('the image entry command: bin/cdn-collector.js run --config FILE', () => {
  let sim: Simulator;
  let entry: Entry;
  let base: string;
  let jobKeys: string[];
  const dir = mkdtempSync(join(tmpdir(), 'ops-healthz-'));

  beforeAll(async () => {
    ensureBuilt();
    sim = await startSimulator();
    const accounts = sim.accounts.slice(0, 2);
    jobKeys = accounts.map((a) => `metrics/${a}`).sort();
    const port = await freePort();
    let delayMs = (Date.now() + DROP_AFTER_MS) % MINUTE;
    if (delayMs < 1000) delayMs += MINUTE;
    const config = {
      api: { baseUrl: sim.url, token: sim.token, timeout: '2s' },
      accounts,
      jobs: onlyJobs({ metrics: { window: '1m', delay: `${delayMs}ms`, byResource: false, schedule: '* * * * * *' } }),
      sink: { type: 'file', path: join(dir, 'points.lp') },
      output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
      state: { dir: join(dir, 'state'), initialLookback: '3m' },
      http: { port, host: '127.0.0.1', maxLag: `${MARGIN_MS}ms` },
    };
    const file = join(dir, 'collector.yaml');
    writeFileSync(file, stringify(config));
    entry = spawnEntry(['run', '--config', file]);
    base = `http://127.0.0.1:${port}`;
  }, 120_000);

  afterAll(async () => {
    if (entry && entry.child.exitCode === null) entry.child.kill('SIGKILL');
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const health = async (): Promise<{ status: number; body: HealthBody }> => {
    const res = await fetch(`${base}/healthz`);
    return { status: res.status, body: (await res.json()) as HealthBody };
  };

  it(
    'answers /healthz 200 once the first pass has reported every job',
    async () => {
      const ok = await waitFor(
        'a healthy report with every job',
        async () => {
          // Every job is listed from the start (lagging from when it joined); before the first pass confirmed a
          // window, a slow start can cross a window boundary and show a lag past the limit: wait for the pass.
          const h = await health();
          return h.status === 200 && Object.keys(h.body.jobs).length === jobKeys.length ? h : undefined;
        },
        WAIT_HEALTHY_MS,
        entry.output,
      );
      expect(ok.status, entry.output()).toBe(200);
      expect(ok.body.status).toBe('ok');
      expect(Object.keys(ok.body.jobs).sort()).toEqual(jobKeys);
      expect(ok.body.reasons).toBeUndefined();
    },
    WAIT_HEALTHY_MS + 10_000,
  );

  it('serves Prometheus text with the collector metrics on /metrics', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^cdn_collector_\w+/m);
    for (const key of jobKeys) expect(text).toContain(`collector_job="${key}"`);
  });

  it(
    'turns /healthz 503 with a reason naming each lagging job once the API is gone',
    async () => {
      await sim.close();
      // Both jobs lag: a window one collected just before the API went and the other did not puts one a minute ahead.
      const lagging = await waitFor(
        'a 503 from /healthz naming both jobs',
        async () => {
          const h = await health();
          return h.status === 503 && jobKeys.every((key) => h.body.reasons?.[key]) ? h : undefined;
        },
        WAIT_LAGGING_MS,
        entry.output,
      );
      expect(lagging.body.status).toBe('lagging');
      expect(Object.keys(lagging.body.reasons ?? {}).sort()).toEqual(jobKeys);
      for (const key of jobKeys) {
        expect(lagging.body.reasons?.[key]).toMatch(/^lag \d+ s exceeds the limit of \d+ s$/);
        expect(lagging.body.jobs[key]?.ok).toBe(false);
        expect(lagging.body.jobs[key]!.lagSeconds).toBeGreaterThan(lagging.body.jobs[key]!.maxLagSeconds);
      }
    },
    WAIT_LAGGING_MS + 10_000,
  );

  it(
    'exits 0 on SIGTERM, even with calls to the vanished API still retrying',
    async () => {
      entry.child.kill('SIGTERM');
      const code = await Promise.race([
        entry.exited,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running'), WAIT_EXIT_MS)),
      ]);
      expect(code, entry.output()).toBe(0);
      expect(entry.output()).not.toContain(sim.token);
    },
    WAIT_EXIT_MS + 10_000,
  );
});
