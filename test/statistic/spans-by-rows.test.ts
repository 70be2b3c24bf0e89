import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { buildJobs, sourcesLearnt } from '../../src/sources/registry.js';
import { ServerPaging } from '../../src/paging/server-paging.js';
import { bucketLimit, groupedSpanBuckets } from '../../src/paging/row-budget.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';
import { configFor } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

/** Whole hours, long final. */
const to = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;

/** Spans sized by the rows a call returns, so a range costs the calls its rows need, not one per day. */
describe('statistic spans sized by rows', () => {
  const s = useSimulator({ quotas: { statistic: null } });
  const jobsOf = (accounts: string[], paging = new ServerPaging()) =>
    buildJobs(configFor(s.sim, { type: 'file', path: '/dev/null' }, { accounts }), { ...sourcesLearnt(), paging });
  const calls = () => s.sim.stats.apis.statistic.requests;

  it('/times spans one page of buckets and ends on its known rows: 1000 buckets, one call', async () => {
    const account = s.sim.accounts[0]!;
    const total = jobsOf([account]).find((j) => j.key === `statistic/${account}/total`)!;
    expect(total.rule.maxSpanMs).toBe(1000 * 5 * MINUTE);
    const span = { from: to - total.rule.maxSpanMs, to };
    expect(total.callsFor(span)).toEqual({ least: 1, most: 1, paged: false });
    const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
    const before = calls();
    const points = await total.collect(span, http);
    expect(calls() - before).toBe(1); // a full page, yet no page to look for more: the span fixes the rows
    expect(points).toHaveLength(1000);
    await http.close();
  });

  it('a grouped read covers a week (2016 buckets) in the calls its rows need, not one per day', async () => {
    const account = s.sim.accounts[0]!;
    const paging = new ServerPaging();
    const countries = jobsOf([account], paging).find((j) => j.key === `statistic/${account}/countries`)!;
    expect(countries.rule.maxSpanMs).toBe(groupedSpanBuckets(1000) * 5 * MINUTE); // 11 days of PT5M
    const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
    paging.observe('statistic', 1000); // a server known to serve full pages (as after a restart, paging.json)
    const before = calls();
    const points = await countries.collect({ from: to - 7 * DAY, to }, http);
    expect(new Set(points.map((p) => p.time)).size).toBe(7 * 288);
    // The groups of a bucket are paged `bucketLimit` at a time so that no answer carries more than rowsPerCall() rows.
    const groups = new Set(points.map((p) => p.tags.country)).size;
    expect(calls() - before).toBe(Math.ceil(groups / bucketLimit(7 * 288, 1000)));
    expect(calls() - before).toBeLessThan(7);
    await http.close();
  });

  it('with two accounts the totals of a week are one /times/accounts call for both', async () => {
    const shared = jobsOf(s.sim.accounts.slice(0, 2)).find((j) => j.key === 'statistic/*/total')!;
    const span = { from: to - 7 * DAY, to };
    expect(shared.callsFor(span)).toEqual({ least: 1, most: 2, paged: true });
    const http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
    const before = calls();
    const points = await shared.collect(span, http);
    expect(calls() - before).toBe(1);
    expect(new Set(points.map((p) => p.tags.account))).toEqual(new Set(s.sim.accounts.slice(0, 2)));
    await http.close();
  });
});
