import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { ServerPaging } from '../../src/paging/server-paging.js';
import { walkPages, flatRows } from '../../src/paging/walk.js';
import { buildJobs, sourcesLearnt } from '../../src/sources/registry.js';
import { HOUR } from '../../src/time.js';
import { configFor } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

/** A closed hour, long final: the same rows on every read. */
const to = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
const span = { from: to - HOUR, to };

/**
 * `api.serverMaxLimit` states the server's page cap: a short page below it cannot have been capped, so the read ends
 * without the check page (and plans do not count one); without it the guard stays.
 */
describe('api.serverMaxLimit against the simulator (its max limit is 1000)', () => {
  const s = useSimulator({ quotas: { statistic: null, streamstat: null } });

  /** Reads a grouped span twice on one client: the second read's rows tie the largest page the API served. */
  async function twice(serverMaxLimit: number | undefined) {
    const api = { baseUrl: s.sim.url, token: s.sim.token, ...(serverMaxLimit ? { serverMaxLimit } : {}) };
    const config = configFor(s.sim, { type: 'file', path: '/dev/null' }, { accounts: [s.sim.accounts[0]!], api });
    const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
    const paging = new ServerPaging(undefined, serverMaxLimit);
    const job = buildJobs(config, { ...sourcesLearnt(), paging }).find(
      (j) => j.key === `statistic/${s.sim.accounts[0]}/countries`,
    )!;
    const calls = () => s.sim.stats.apis.statistic.requests;
    try {
      await job.collect(span, http);
      const rows = paging.rowsOf(job.key)!;
      expect(rows).toBeGreaterThan(0);
      expect(rows).toBeLessThan(1000);
      expect(paging.largestPage('statistic')).toBe(rows); // a tie: the guard's case
      const { least, most } = job.callsFor(span);
      const planned = [least, most];
      const before = calls();
      await job.collect(span, http);
      return { planned, made: calls() - before };
    } finally {
      await http.close();
    }
  }

  it('set to 1000: a short page tying the largest ends the read; the planned calls made, no check call', async () => {
    expect(await twice(1000)).toEqual({ planned: [1, 1], made: 1 });
  });

  it('unset: the guard still reads the check page, and the plan counts it', async () => {
    expect(await twice(undefined)).toEqual({ planned: [2, 2], made: 2 });
  });

  it('the limit sent never exceeds it, whatever pageSize asks', async () => {
    const paging = new ServerPaging(undefined, 7);
    const read = {
      api: 'statistic' as const,
      endpoint: '/x',
      rows: flatRows,
      fetchPage: async (_offset: number, limit: number) => ({ result: Array.from({ length: limit === 7 ? 3 : 0 }) }),
    };
    const pages = [];
    for await (const page of walkPages(paging, read, 0, 1000)) pages.push(page.result.length);
    expect(pages).toEqual([3]);
  });
});

/** A loopback server that serves at most 50 rows a page whatever `limit` asks, and records the limits sent. */
describe('api.serverMaxLimit: a server capping at 50 stated as 50, pageSize 1000', () => {
  const ROWS = 173;
  const limits: number[] = [];
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams;
      const offset = Number(q.get('offset') ?? 0);
      const limit = Number(q.get('limit'));
      limits.push(limit);
      const rows = Array.from(
        { length: Math.max(0, Math.min(ROWS, offset + Math.min(limit, 50)) - offset) },
        (_, i) => ({ id: offset + i }),
      );
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ result: rows }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('every row is read: a full 50-row page is followed by the next, the 23-row one ends the read', async () => {
    const paging = new ServerPaging(undefined, 50);
    const read = {
      api: 'statistic' as const,
      endpoint: '/rows',
      rows: flatRows,
      fetchPage: async (offset: number, limit: number) =>
        (await request(`${url}/rows?offset=${offset}&limit=${limit}`)).body.json() as Promise<{
          result: Array<{ id: number }>;
        }>,
    };
    const ids: number[] = [];
    for await (const page of walkPages(paging, read, 0, 1000)) ids.push(...page.result.map((r) => r.id));
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i));
    expect(limits).toEqual([50, 50, 50, 50]); // four pages, none above the cap, no check page after the short one
  });
});
