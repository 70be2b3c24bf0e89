import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { buildJobs } from '../../src/sources/registry.js';
import { HOUR } from '../../src/time.js';
import { configFor } from '../helpers/collector.js';
import { loopbackServer } from '../helpers/loopback.js';
import { useSimulator } from '../helpers/sim.js';

/** A closed hour, long final. */
const to = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
const span = { from: to - HOUR, to };

/**
 * The statistics calls carry only what a real client sends (spec-conformance "not shown"): no `language` unless
 * configured or the points carry names in it, `limit` alone on a first page (`offset` from the second on), the page
 * size from `api.pageSize`, times as the spec writes them (no `Z`).
 */
describe('requests the real clients send', () => {
  const s = useSimulator({ quotas: { statistic: null, streamstat: null } });

  /** The query strings of reading one span of `grouping`'s job, through a recording proxy to the simulator. */
  async function queriesOf(
    api: string,
    grouping: string,
    api_: Record<string, unknown> = {},
  ): Promise<URLSearchParams[]> {
    const seen: URLSearchParams[] = [];
    const proxy = await loopbackServer(async (req, res) => {
      const url = new URL(req.url ?? '/', s.sim.url);
      seen.push(url.searchParams);
      const upstream = await fetch(url, { headers: { 'cdn-auth-token': String(req.headers['cdn-auth-token'] ?? '') } });
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
    });
    const account = s.sim.accounts[0]!;
    const config = configFor(
      s.sim,
      { type: 'file', path: '/dev/null' },
      { accounts: [account], api: { baseUrl: proxy.url, token: s.sim.token, ...api_ } },
    );
    const job = buildJobs(config).find((j) => j.key === `${api}/${account}/${grouping}`)!;
    const http = new HttpClient({ baseUrl: proxy.url, token: s.sim.token });
    try {
      await job.collect(span, http);
      return seen;
    } finally {
      await http.close();
      await proxy.close();
    }
  }

  it('statistic /times: no language, limit alone (the default page size 1000), times without Z', async () => {
    // A fresh client reads one more page after a short one (walkPages: the server's cap is not known yet).
    const [q, next] = await queriesOf('statistic', 'total');
    expect(next?.get('offset') ?? null).not.toBe('0');
    expect(q!.has('language')).toBe(false);
    expect(q!.has('offset')).toBe(false);
    expect(q!.get('limit')).toBe('1000');
    expect(q!.get('start')).toBe(new Date(span.from).toISOString().slice(0, 19));
    expect(q!.get('end')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00$/);
  });

  it('statistic /times/countries: language=en though unset (country_name tags are in it)', async () => {
    const queries = await queriesOf('statistic', 'countries');
    expect(queries.every((q) => q.get('language') === 'en')).toBe(true);
  });

  it('a configured language is sent, and api.pageSize pages with offset from the second page on', async () => {
    const queries = await queriesOf('streamstat', 'streams', { language: 'ru', pageSize: 1 });
    expect(queries.length).toBeGreaterThan(1);
    expect(queries.every((q) => q.get('language') === 'ru' && q.get('limit') === '1')).toBe(true);
    expect(queries[0]!.has('offset')).toBe(false);
    expect(queries.slice(1).map((q) => q.get('offset'))).toEqual(queries.slice(1).map((_, i) => String(i + 1)));
  });

  it('streamstat: no language when unset, times without Z', async () => {
    const [q] = await queriesOf('streamstat', 'total');
    expect(q!.has('language')).toBe(false);
    expect(q!.get('start')).toBe(new Date(span.from).toISOString().slice(0, 19));
  });
});
