import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { PAGING_FILE, PagingMemory } from '../../src/paging/memory.js';
import { ServerPaging } from '../../src/paging/server-paging.js';
import { buildJobs, sourcesLearnt } from '../../src/sources/registry.js';
import { HOUR } from '../../src/time.js';
import { configFor } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

/** A closed hour, long final: the same rows on every read. */
const to = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
const span = { from: to - HOUR, to };
const CAP = 3;

/**
 * A server that caps its pages below the `limit` asked (the spec does not show the largest limit): the first answer
 * that shows the cap (a short page, then more rows) teaches it, paging.json keeps it, and a restart plans every paged
 * read of the API to the call — no range, no check page.
 */
describe('the page size a server shows is learnt per API and planned with', () => {
  const s = useSimulator({ quotas: { statistic: null, streamstat: null } });
  const state = mkdtempSync(join(tmpdir(), 'page-size-learnt-'));
  afterAll(() => rmSync(state, { recursive: true, force: true }));

  /** One runtime's client and jobs on `state` (a restart: what paging learnt comes from the file). */
  async function runtime() {
    const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
    const paging = new ServerPaging();
    const memory = await PagingMemory.open(state, paging);
    const config = configFor(s.sim, { type: 'file', path: '/dev/null' }, { accounts: [s.sim.accounts[0]!] });
    const jobs = buildJobs(config, { ...sourcesLearnt(), paging });
    const job = (grouping: string) => jobs.find((j) => j.key === `statistic/${s.sim.accounts[0]}/${grouping}`)!;
    return { http, paging, memory, job };
  }
  const calls = () => s.sim.stats.apis.statistic.requests;

  it('a short page then more rows is the cap; after a restart the plan is one number, the calls made', async () => {
    s.sim.faults.set('statistic', { rate: 1, kinds: ['page-cap'], pageCap: CAP });
    try {
      const first = await runtime();
      for (const grouping of ['codes', 'countries']) await first.job(grouping).collect(span, first.http);
      await first.memory.flush();
      await first.http.close();
      expect(JSON.parse(readFileSync(join(state, PAGING_FILE), 'utf8')).pageCap).toEqual({ statistic: CAP });

      const restarted = await runtime();
      for (const grouping of ['codes', 'countries']) {
        const job = restarted.job(grouping);
        const rows = restarted.paging.rowsOf(job.key)!;
        expect(rows).toBeGreaterThan(0);
        const { least, most } = job.callsFor(span);
        const before = calls();
        await job.collect(span, restarted.http);
        expect({ grouping, least, most }).toEqual({ grouping, least: calls() - before, most: calls() - before });
        expect(least).toBe(Math.floor(rows / CAP) + 1); // full pages of the cap, then the short (or empty) one
      }
      expect(restarted.paging.pageCap('statistic')).toBe(CAP);
      expect(restarted.paging.pageCap('streamstat')).toBeUndefined(); // per API
      await restarted.http.close();
    } finally {
      s.sim.faults.set('statistic', undefined);
    }
  });

  it('a server that never caps below the limit: after a restart every paged read is planned to the call', async () => {
    const honest = mkdtempSync(join(tmpdir(), 'page-size-honest-'));
    const open = async () => {
      const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
      const paging = new ServerPaging();
      const memory = await PagingMemory.open(honest, paging);
      const config = configFor(s.sim, { type: 'file', path: '/dev/null' }, { accounts: s.sim.accounts });
      const jobs = buildJobs(config, { ...sourcesLearnt(), paging }).filter(
        (j) => (j.api === 'statistic' || j.api === 'streamstat') && j.checkpointed,
      );
      return { http, memory, jobs };
    };
    const made = () => s.sim.stats.apis.statistic.requests + s.sim.stats.apis.streamstat.requests;
    try {
      const first = await open();
      for (const job of first.jobs) await job.collect(span, first.http);
      await first.memory.flush();
      await first.http.close();

      const restarted = await open();
      const plans: Array<{ key: string; least: number; most: number }> = [];
      const actual: Array<{ key: string; least: number; most: number }> = [];
      for (const job of restarted.jobs) {
        const { least, most } = job.callsFor(span);
        plans.push({ key: job.key, least, most });
        const before = made();
        await job.collect(span, restarted.http);
        actual.push({ key: job.key, least: made() - before, most: made() - before });
      }
      await restarted.http.close();
      expect(plans.length).toBeGreaterThan(10); // both APIs, both accounts, the shared totals
      expect(plans).toEqual(actual);
    } finally {
      rmSync(honest, { recursive: true, force: true });
    }
  });
});
