import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createRuntime } from '../../src/app/runtime.js';
import { createLogger } from '../../src/log.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { configFor } from '../helpers/collector.js';
import { rawGet } from './helpers.js';

const FLAT_WARNING = 'stream view statistics answer without buckets';

/**
 * A service that ignores `granularity` (`streamstatShape: 'flat'`, CLI `sim --streamstat-flat`) answers
 * the flat grouped shape for the whole window. The collector notices once, logs it, and reads one call per bucket:
 * the same cdn_views points as from a service that answers in buckets.
 */
describe('stream views from a service that answers without buckets', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);
  const sims: Simulator[] = [];
  afterAll(() => Promise.all(sims.map((s) => s.close())));

  async function simulator(streamstatShape: 'buckets' | 'flat'): Promise<Simulator> {
    const sim = await startSimulator({ clock, quotas: NO_QUOTAS, settings: { streamstatShape } });
    sims.push(sim);
    return sim;
  }

  /**
   * Stream views only (uniques have their own test: uniques-influx.test.ts), 15-minute buckets, the default hour of
   * initial lookback: a handful of calls per job.
   */
  async function collectorFor(sim: Simulator) {
    const out = join(mkdtempSync(join(tmpdir(), 'streamstat-shape-')), 'points.lp');
    const jobs = {
      metrics: { enabled: false },
      statistic: { enabled: false },
      dvr: { enabled: false },
      streamstat: { granularity: 'PT15M', uniques: [] },
    };
    const logged: string[] = [];
    const destination = new Writable({ write: (chunk, _enc, done) => void (logged.push(String(chunk)), done()) });
    const rt = await createRuntime(
      configFor(sim, { type: 'file', path: out }, { jobs }),
      clock,
      createLogger('warn', { pretty: false, destination }),
    );
    const pass = async () => {
      const results = await rt.collector.tick();
      expect(results.filter((r) => r.error)).toEqual([]);
    };
    const lines = () =>
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('cdn_views'))
        .sort();
    const warnings = () => logged.filter((l) => l.includes(FLAT_WARNING));
    return { rt, pass, lines, warnings };
  }

  it('the flat simulator checks granularity but answers one flat total and one flat list', async () => {
    const sim = await simulator('flat');
    const window = { start: '2026-01-01T10:00:00Z', end: '2026-01-01T11:00:00Z', account: sim.accounts[0]! };
    const total = await rawGet(sim, '/', { ...window, granularity: 'PT15M' });
    expect(total.status).toBe(200);
    expect(total.body).toMatchObject({
      start: window.start,
      end: window.end,
      granularity: 'PT15M',
      views: expect.any(Number),
    });
    expect(total.body).not.toHaveProperty('result');
    const streams = await rawGet(sim, '/streams', { ...window, granularity: 'PT15M' });
    expect((streams.body as { result: object[] }).result[0]).toMatchObject({
      stream: expect.any(String),
      views: expect.any(Number),
    });
    expect((await rawGet(sim, '/', { ...window, granularity: 'PT10M' })).status).toBe(400);
  });

  it(
    'writes the same cdn_views points in both shapes, ' +
      'logs the flat answer once and then spends one call per bucket',
    async () => {
      const buckets = await collectorFor(await simulator('buckets'));
      const flatSim = await simulator('flat');
      const flat = await collectorFor(flatSim);
      try {
        await buckets.pass();
        await flat.pass();
        expect(buckets.lines().length).toBeGreaterThan(0);
        expect(buckets.lines().some((l) => l.startsWith('cdn_views_by_streams,'))).toBe(true);
        expect(flat.lines()).toEqual(buckets.lines());
        expect(flat.warnings()).toHaveLength(1);
        expect(JSON.parse(flat.warnings()[0]!)).toMatchObject({ level: 40, granularity: 'PT15M' });
        expect(buckets.warnings()).toEqual([]);

        // Once flat is known: one call per bucket and job, as the plan counts; a grouped bucket may take one more (an
        // empty page: walkPages reads on while a page is as large as any seen, which may be a capped one).
        clock.advance(30 * MINUTE);
        const jobs = flat.rt.collector.jobs.filter((j) => j.api === 'streamstat');
        const halfHour = { from: clock.now() - 2 * HOUR, to: clock.now() - 2 * HOUR + 30 * MINUTE };
        // The plan forecasts a grouped read's check page when its rows tie the largest page seen (paging.groupedCalls).
        const forecast = (job: (typeof jobs)[number], perRead: number) => {
          const least = job.callsFor(halfHour).least;
          if (job.key.endsWith('/total')) expect(least, job.key).toBe(perRead);
          else expect([perRead, 2 * perRead], job.key).toContain(least);
        };
        for (const job of jobs) forecast(job, 2);
        for (const job of buckets.rt.collector.jobs) forecast(job, 1);
        const groupedJobs = jobs.filter((j) => !j.key.endsWith('/total')).length;
        flatSim.stats.reset();
        const before = new Set(flat.lines());
        await flat.pass();
        await buckets.pass();
        const newTotals = flat.lines().filter((l) => !before.has(l) && l.startsWith('cdn_views,'));
        const newBuckets = new Set(newTotals.map((l) => l.split(' ').at(-1))).size;
        expect(newBuckets).toBeGreaterThan(0);
        const calls = flatSim.stats.apis.streamstat.requests;
        expect(calls).toBeGreaterThanOrEqual(newBuckets * jobs.length);
        expect(calls).toBeLessThanOrEqual(newBuckets * (jobs.length + groupedJobs));
        expect(flat.lines()).toEqual(buckets.lines());
        expect(flat.warnings()).toHaveLength(1);
      } finally {
        await Promise.all([buckets.rt.close(), flat.rt.close()]);
      }
    },
  );
});
