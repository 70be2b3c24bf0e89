import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { ApiError } from '../../src/http/errors.js';
import { statedPeriodLimit } from '../../src/sources/metrics/window-limit.js';
import { formatMinute, HOUR, MINUTE } from '../../src/time.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { configFor, type LogLine, onlyJobs } from '../helpers/collector.js';
import { useSimInProcess, runtimeInProcess, simFetch } from '../helpers/in-process.js';

const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);

/**
 * A metrics service that takes 1-minute periods only (one stored copy of the vendor's page) answers a 10-minute
 * window 422 "Period must be 1 minute". The window is read in calls of the limit it states, one point per minute,
 * said once at warn naming jobs.metrics.window — not every window set aside with nothing saying why.
 */
describe('a metrics window the API refuses as too long', () => {
  const s = useSimInProcess({
    clock,
    quotas: NO_QUOTAS,
    world: { accounts: 2 },
    settings: { metricsMaxPeriodMinutes: 1 },
  });

  it('is read in calls of the stated limit, said once; nothing set aside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'period-limit-'));
    const out = join(dir, 'points.lp');
    const config = configFor(
      s.sim,
      { type: 'file', path: out },
      {
        accounts: ['acme', 'globex'],
        jobs: onlyJobs({ metrics: { window: '10m', delay: '2m', byResource: true } }),
        state: { dir: join(dir, 'state'), initialLookback: '30m' },
      },
    );
    const { log, text } = capturedLogger();
    const rt = await runtimeInProcess(config, clock, log);
    try {
      const results = await rt.collector.tick();
      expect(results.filter((r) => r.error || r.setAside > 0)).toEqual([]);
      const jobs = rt.collector.jobs;
      expect(jobs).toHaveLength(4);
      for (const job of jobs) {
        const confirmed = rt.store.confirmed(job.key);
        expect(confirmed, job.key).toHaveLength(1);
        expect((confirmed[0]!.to - confirmed[0]!.from) % (10 * MINUTE)).toBe(0);
      }
      // One cdn_metrics point per minute and account: the limit's periods, not the configured window's.
      const aggregate = readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('cdn_metrics,account=acme '));
      const times = new Set(aggregate.map((l) => Number(l.split(' ').at(-1)!) / 1e6));
      const [span] = rt.store.confirmed('metrics/acme');
      expect(times.size).toBe((span!.to - span!.from) / MINUTE);

      const lines = text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogLine);
      const said = lines.filter((l) => l.field === 'jobs.metrics.window');
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({ level: 40, limitMinutes: 1 });
      expect(lines.filter((l) => l.event === 'span_failed')).toEqual([]);

      // Planned as read: a 10-minute window now costs ten calls.
      expect(jobs[0]!.callsFor({ from: span!.from, to: span!.from + 10 * MINUTE }).least).toBe(10);
      clock.advance(10 * MINUTE);
      const before = s.sim.stats.apis.metrics.requests;
      expect((await rt.collector.tick()).filter((r) => r.error || r.setAside > 0)).toEqual([]);
      expect(s.sim.stats.apis.metrics.requests - before).toBe(4 * 10);
    } finally {
      await rt.close();
    }
  });

  it('the simulator answers a longer period 422 with the spec error shape, stating the limit', async () => {
    const end = Math.floor(clock.now() / HOUR) * HOUR - HOUR;
    const query = (minutes: number) =>
      `account=acme&start=${formatMinute(end - minutes * MINUTE)}&end=${formatMinute(end)}`;
    const get = (minutes: number) =>
      simFetch(`${s.sim.url}/app/metrics/v1/?${query(minutes)}`, { headers: { 'cdn-auth-token': s.sim.token } });
    const refused = await get(2);
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({ status: 'Unprocessable Entity', description: 'Period must be 1 minute' });
    expect((await get(1)).status).toBe(200);
  });
});

describe('the limit a 422 states', () => {
  const refusal = (description: string, status = 422, api = 'metrics') =>
    Object.assign(Object.create(ApiError.prototype) as ApiError, {
      status,
      description,
      request: { api, method: 'GET', url: 'x' },
    });
  it('is the longest period in minutes its text names, only for a metrics 422 about the period', () => {
    expect(statedPeriodLimit(refusal('Period must be 1 minute'))).toBe(1);
    expect(statedPeriodLimit(refusal('Period must be from 1 to 10 minutes'))).toBe(10);
    expect(statedPeriodLimit(refusal('Data is returned for a 1-minute period'))).toBe(1);
    expect(statedPeriodLimit(refusal('Unknown metric: x'))).toBeUndefined();
    expect(statedPeriodLimit(refusal('Period must be 1 minute', 403))).toBeUndefined();
    expect(statedPeriodLimit(refusal('Period must be 1 minute', 422, 'dvr'))).toBeUndefined();
  });
});
