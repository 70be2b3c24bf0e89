import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.js';
import type { StatisticClient } from '../../src/sources/statistic/client.js';
import type { StatisticQuery } from '../../src/sources/statistic/params.js';
import { clientFor, EVERY_GROUPING, newClock, WINDOW } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

const ctx = useSimInProcess({ clock: newClock(), quotas: { statistic: null } });

/** Runs a call that must break a rule: a ParameterError naming `parameter`, and no request reached the simulator. */
async function rejects(call: (c: StatisticClient) => Promise<unknown>, parameter: string): Promise<void> {
  const before = ctx.sim.stats.apis.statistic.requests;
  const err = await call(clientFor(ctx.sim)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected a ParameterError for ${parameter}`).toBeInstanceOf(ParameterError);
  expect((err as ParameterError).parameter).toBe(parameter);
  expect((err as ParameterError).message).toContain(parameter);
  expect(ctx.sim.stats.apis.statistic.requests).toBe(before);
}

const T = { ...WINDOW, granularity: 'PT1H' };
const q = (extra: Partial<StatisticQuery>): StatisticQuery => ({ ...WINDOW, ...extra });

describe('A1/A2 rules are enforced before any request', () => {
  it('A2: / has no sort, offset, limit', async () => {
    await rejects((c) => c.total(q({ sort: '-traffic' })), 'sort');
    await rejects((c) => c.total(q({ offset: 0 })), 'offset');
    await rejects((c) => c.total(q({ limit: 10 })), 'limit');
  });

  it('A2: /times has no sort', async () => {
    await rejects((c) => c.times({ ...T, sort: '-traffic' }), 'sort');
  });

  it('A2: /hosts needs account and has no path', async () => {
    await rejects((c) => c.grouped('hosts', q({})), 'account');
    await rejects((c) => c.timesGrouped('hosts', { ...T }), 'account');
    await rejects((c) => c.grouped('hosts', q({ account: 'acme', path: '/' })), 'path');
  });

  it('A2: /paths needs account and host', async () => {
    await rejects((c) => c.grouped('paths', q({ host: 'h.example' })), 'account');
    await rejects((c) => c.grouped('paths', q({ account: 'acme' })), 'host');
  });

  it('A2: /countries has no region', async () => {
    await rejects((c) => c.grouped('countries', q({ region: 'RU-MOW' })), 'region');
  });

  it('A2: /accounts has no host, path, resource', async () => {
    await rejects((c) => c.grouped('accounts', q({ host: 'h.example' })), 'host');
    await rejects((c) => c.grouped('accounts', q({ path: '/' })), 'path');
    await rejects((c) => c.timesGrouped('accounts', { ...T, resource: '1' }), 'resource');
  });

  it('A1: granularity is required on time endpoints, must be valid, and is refused elsewhere', async () => {
    await rejects((c) => c.times(q({})), 'granularity');
    await rejects((c) => c.timesGrouped('codes', q({})), 'granularity');
    await rejects((c) => c.times(q({ granularity: 'P1DT12H' })), 'granularity');
    await rejects((c) => c.times(q({ granularity: '5 minutes' })), 'granularity');
    await rejects((c) => c.total(q({ granularity: 'PT1H' })), 'granularity');
    await rejects((c) => c.grouped('codes', q({ granularity: 'PT1H' })), 'granularity');
  });

  it('A1: timezone only on time endpoints, and an IANA zone', async () => {
    await rejects((c) => c.total(q({ timezone: 'Europe/Moscow' })), 'timezone');
    await rejects((c) => c.grouped('browsers', q({ timezone: 'UTC' })), 'timezone');
    await rejects((c) => c.times({ ...T, timezone: 'Mars/Olympus' }), 'timezone');
  });

  it('A: start < end, both required, seconds 00', async () => {
    await rejects((c) => c.total({ start: WINDOW.end, end: WINDOW.start }), 'start');
    await rejects((c) => c.total({ start: WINDOW.start, end: WINDOW.start }), 'start');
    await rejects((c) => c.total({ start: '2026-03-10T08:00:30Z', end: WINDOW.end }), 'start');
    await rejects((c) => c.total({ start: WINDOW.start, end: '2026-03-10T10:00:01Z' }), 'end');
    await rejects((c) => c.total({ start: 'yesterday', end: WINDOW.end }), 'start');
    await rejects((c) => c.total({ start: '', end: WINDOW.end }), 'start');
  });

  it('A: sort has the form [+-]field', async () => {
    await rejects((c) => c.grouped('codes', q({ sort: '*traffic' })), 'sort');
    await rejects((c) => c.grouped('codes', q({ sort: '-views' })), 'sort');
    await rejects((c) => c.grouped('codes', q({ sort: '--traffic' })), 'sort');
  });

  it('A1: service is media or static; fields within traffic, cache_ratio, hits, bandwidth', async () => {
    await rejects((c) => c.total(q({ service: 'video' as never })), 'service');
    await rejects((c) => c.total(q({ fields: ['traffic', 'views' as never] })), 'fields');
    await rejects((c) => c.total(q({ fields: [] })), 'fields');
  });

  it('A1: offset, limit, code are integers; filters are not empty', async () => {
    await rejects((c) => c.grouped('codes', q({ offset: -1 })), 'offset');
    await rejects((c) => c.grouped('codes', q({ limit: 0 })), 'limit');
    await rejects((c) => c.grouped('codes', q({ limit: 1.5 })), 'limit');
    await rejects((c) => c.total(q({ code: 20 })), 'code');
    await rejects((c) => c.total(q({ country: '' })), 'country');
  });

  it('paging sets limit itself', async () => {
    await rejects(async (c) => {
      for await (const page of c.pages('codes', q({ limit: 5 }))) void page;
    }, 'limit');
    await rejects(async (c) => {
      for await (const page of c.timesPages('codes', { ...T }, 0)) void page;
    }, 'limit');
  });
});

describe('what the client sends', () => {
  it('sends times with formatMinuteUtc, fields comma-separated, every filter; reaches all 24 endpoints', async () => {
    const client = clientFor(ctx.sim);
    const account = ctx.sim.accounts[0]!;
    const host = ctx.sim.world.accounts[0]!.resources[0]!.cname;
    const total = await client.total(
      q({ start: new Date(Date.parse(WINDOW.start)), fields: ['hits', 'traffic'], account, code: 200 }),
    );
    expect(total.body).toMatchObject({ start: WINDOW.start, end: WINDOW.end, account, code: 200 });
    expect(Object.keys(total.body).sort()).toEqual(['account', 'code', 'end', 'hits', 'start', 'traffic']);
    for (const g of EVERY_GROUPING) {
      const extra: Partial<StatisticQuery> = g === 'hosts' ? { account } : g === 'paths' ? { account, host } : {};
      const grouped = await client.grouped(g, q({ ...extra, limit: 2, sort: '-traffic' }));
      expect(grouped.body.result.length, g).toBeGreaterThan(0);
      const times = await client.timesGrouped(g, { ...T, ...extra, limit: 1 });
      expect(times.body.result).toHaveLength(2);
      expect(times.body.result[0]!.result.length, g).toBe(1);
    }
    expect((await client.times(T)).body.result).toHaveLength(2);
    const paths = await client.grouped('paths', q({ account, host }));
    expect(paths.body.host).toBe(host);
  });
});
