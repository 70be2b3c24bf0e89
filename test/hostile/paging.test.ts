import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { isRetryable } from '../../src/failure.js';
import { HttpClient } from '../../src/http/client.js';
import { parseFaultFlag, type FaultPlan } from '../../src/sim/faults.js';
import { ServerPaging } from '../../src/paging/server-paging.js';
import { buildJobs, sourcesLearnt } from '../../src/sources/registry.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { StreamstatClient } from '../../src/sources/streamstat/client.js';
import { HOUR } from '../../src/time.js';
import { configFor } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

/** A closed hour, long final: the same rows on every read. */
const to = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
const span = { from: to - HOUR, to };

/**
 * The largest `limit` the statistics APIs honour is not shown, so paging does not trust the server: a server that caps
 * pages is paged through (nothing silently cut), one that ignores `offset` is detected (never an endless loop), and
 * the number of pages is bounded.
 */
describe('paging against a server that does not honour limit or offset', () => {
  const s = useSimulator({ quotas: { statistic: null, streamstat: null } });

  /** Points of one span of `key`, read through a fresh client (nothing learned yet), with `faults` on its API. */
  async function read(key: string, plan: FaultPlan | undefined, maxPages?: number) {
    const config = configFor(s.sim, { type: 'file', path: '/dev/null' }, { accounts: [s.sim.accounts[0]!] });
    const paging = new ServerPaging(maxPages);
    const job = buildJobs(config, { ...sourcesLearnt(), paging }).find((j) => j.key === key)!;
    s.sim.faults.set(job.api, plan);
    const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
    try {
      return await job.collect(span, http);
    } finally {
      s.sim.faults.set(job.api, undefined);
      await http.close();
    }
  }
  const keyOf = (api: string, grouping: string) => `${api}/${s.sim.accounts[0]}/${grouping}`;

  it.each([
    ['statistic', 'countries'],
    ['statistic', 'total'],
    ['streamstat', 'streams'],
  ])(
    '%s %s: a server capping every page at 2 rows yields every point, as an honest one does',
    async (api, grouping) => {
      const honest = await read(keyOf(api, grouping), undefined);
      const capped = await read(keyOf(api, grouping), { rate: 1, kinds: ['page-cap'], pageCap: 2 });
      expect(honest.length).toBeGreaterThan(4);
      expect(capped.length).toBe(honest.length);
      expect(new Set(capped.map((p) => JSON.stringify(p)))).toEqual(new Set(honest.map((p) => JSON.stringify(p))));
    },
  );

  it('a server ignoring offset fails the span with a PagingError naming the endpoint', async () => {
    const err = await read(keyOf('statistic', 'countries'), { rate: 1, kinds: ['ignore-offset'] }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: 'PagingError', reason: 'repeated', api: 'statistic' });
    expect(err).toMatchObject({ endpoint: '/times/countries' });
    expect(isRetryable(err)).toBe(false);
    expect(String(err)).toMatch(/\/times\/countries.*ignores offset/);
  });

  it('paging is bounded by maxPages', async () => {
    const err = await read(keyOf('streamstat', 'streams'), { rate: 1, kinds: ['page-cap'], pageCap: 1 }, 3).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: 'PagingError', reason: 'too-many-pages', pages: 3, endpoint: '/streams' });
    expect(String(err)).toMatch(/api\.maxPages/);
  });

  it('once the server has shown a larger page, a short page ends the read without an extra call', async () => {
    const config = configFor(s.sim, { type: 'file', path: '/dev/null' }, { accounts: [s.sim.accounts[0]!] });
    const paging = new ServerPaging();
    const jobs = buildJobs(config, { ...sourcesLearnt(), paging });
    const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
    const calls = () => s.sim.stats.apis.statistic.requests;
    // A day of 5-minute buckets: 288 on one page.
    const day = { from: to - 24 * HOUR, to };
    await jobs.find((j) => j.key === keyOf('statistic', 'total'))!.collect(day, http);
    expect(paging.largestPage('statistic')).toBe(288);
    const before = calls();
    await jobs.find((j) => j.key === keyOf('statistic', 'codes'))!.collect(span, http);
    expect(calls() - before).toBe(1);
    await http.close();
  });

  it("the clients' pages() generators page through a capped server too", async () => {
    const q = {
      account: s.sim.accounts[0]!,
      start: new Date(span.from).toISOString(),
      end: new Date(span.to).toISOString(),
    };
    const all = async (api: 'statistic' | 'streamstat', plan: FaultPlan | undefined) => {
      s.sim.faults.set(api, plan);
      const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
      const rows: unknown[] = [];
      const pages =
        api === 'statistic'
          ? new StatisticClient(http).pages('countries', q)
          : new StreamstatClient(http).pages('streams', q);
      for await (const page of pages) rows.push(...page);
      s.sim.faults.set(api, undefined);
      await http.close();
      return rows;
    };
    for (const api of ['statistic', 'streamstat'] as const) {
      const honest = await all(api, undefined);
      expect(honest.length).toBeGreaterThan(2);
      expect(await all(api, { rate: 1, kinds: ['page-cap'], pageCap: 2 })).toEqual(honest);
    }
  });

  it('the simulator takes the paging faults from --fault and the control API', async () => {
    expect(parseFaultFlag('statistic=page-cap,ignore-offset')).toEqual({
      apis: ['statistic'],
      plan: { rate: 1, kinds: ['page-cap', 'ignore-offset'] },
    });
    const res = await request(`${s.sim.url}/_sim/faults/streamstat`, {
      method: 'PUT',
      body: JSON.stringify({ kinds: ['page-cap'], rate: 1, pageCap: 3 }),
    });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    expect(s.sim.faults.get('streamstat')).toMatchObject({ kinds: ['page-cap'], pageCap: 3 });
    s.sim.faults.set('streamstat', undefined);
  });
});
