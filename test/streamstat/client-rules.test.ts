import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.js';
import type { StreamstatQuery } from '../../src/sources/streamstat/params.js';
import { clientFor, newClock, WINDOW } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

const ctx = useSimInProcess({ clock: newClock() });
const base: StreamstatQuery = { ...WINDOW, account: 'acme' };

/** Runs the call, expects a ParameterError naming `parameter`, and checks that nothing reached the simulator. */
async function expectRejected(
  parameter: string,
  call: () => Promise<unknown> | AsyncGenerator<unknown>,
): Promise<void> {
  const before = ctx.sim.stats.apis.streamstat.requests;
  const run = async () => {
    const r = call();
    if (Symbol.asyncIterator in r) for await (const _ of r) void _;
    else await r;
  };
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ParameterError);
  expect((err as ParameterError).parameter).toBe(parameter);
  expect((err as ParameterError).message).toContain(parameter);
  expect(ctx.sim.stats.apis.streamstat.requests).toBe(before);
}

describe('StreamstatClient checks spec B rules before any request', () => {
  const client = () => clientFor(ctx.sim);

  it('start and end are required', async () => {
    await expectRejected('start', () => client().total({ ...base, start: '' }));
    await expectRejected('end', () => client().total({ ...base, end: undefined as unknown as string }));
  });

  it('start and end must be valid times with seconds 00', async () => {
    await expectRejected('start', () => client().total({ ...base, start: 'yesterday' }));
    await expectRejected('start', () => client().total({ ...base, start: '2026-03-10T08:00:30Z' }));
    await expectRejected('end', () => client().total({ ...base, end: Date.UTC(2026, 2, 10, 9, 0, 1) }));
  });

  it('start must be less than end', async () => {
    await expectRejected('start', () => client().total({ ...base, start: WINDOW.end, end: WINDOW.start }));
    await expectRejected('start', () => client().total({ ...base, end: WINDOW.start }));
  });

  it('region requires country', async () => {
    await expectRejected('region', () => client().total({ ...base, region: 'MOW' }));
  });

  it('stream requires account', async () => {
    await expectRejected('stream', () => client().total({ ...WINDOW, stream: ['news'] }));
  });

  it('offset requires limit', async () => {
    await expectRejected('offset', () => client().grouped('streams', { ...base, offset: 10 }));
  });

  it('sort must have the form [+-]field', async () => {
    await expectRejected('sort', () => client().grouped('streams', { ...base, sort: '-views desc' }));
    await expectRejected('sort', () => client().grouped('streams', { ...base, sort: '*users' }));
  });

  it('the sort field must be among fields (all three when fields is omitted)', async () => {
    await expectRejected('sort', () => client().grouped('streams', { ...base, fields: ['views'], sort: '-users' }));
    await expectRejected('sort', () => client().grouped('streams', { ...base, sort: '-hits' }));
  });

  it('sort, offset and limit are for grouping endpoints only', async () => {
    await expectRejected('sort', () => client().total({ ...base, sort: '-views' }));
    await expectRejected('offset', () => client().total({ ...base, offset: 0, limit: 5 }));
    await expectRejected('limit', () => client().total({ ...base, limit: 5 }));
  });

  it('limit and offset must be integers in range', async () => {
    await expectRejected('limit', () => client().grouped('streams', { ...base, limit: 0 }));
    await expectRejected('offset', () => client().grouped('streams', { ...base, offset: -1, limit: 5 }));
  });

  it('granularity must be in the allowed list, and decides the method', async () => {
    await expectRejected('granularity', () => client().times({ ...base, granularity: 'PT10M' as never }));
    await expectRejected('granularity', () => client().times({ ...base, granularity: 'P1DT12H' as never }));
    await expectRejected('granularity', () => client().total({ ...base, granularity: 'PT5M' }));
    await expectRejected('granularity', () => client().grouped('streams', { ...base, granularity: 'PT5M' }));
    await expectRejected('granularity', () => client().times(base));
  });

  it('stream_type values are live, vod or unknown', async () => {
    await expectRejected('stream_type', () => client().total({ ...base, streamType: ['live', 'radio' as never] }));
  });

  it('fields are among views_max, views, users', async () => {
    await expectRejected('fields', () => client().total({ ...base, fields: ['views', 'hits' as never] }));
    await expectRejected('fields', () => client().total({ ...base, fields: [] }));
  });

  it('language is en or ru', async () => {
    await expectRejected('language', () => client().total({ ...base, language: 'de' as never }));
  });

  it('pages() owns limit', async () => {
    await expectRejected('limit', () => client().pages('streams', { ...base, limit: 5 }));
    await expectRejected('limit', () => client().pages('streams', base, 0));
  });

  it('a valid call does reach the simulator (the counter above can move)', async () => {
    const before = ctx.sim.stats.apis.streamstat.requests;
    await client().total(base);
    expect(ctx.sim.stats.apis.streamstat.requests).toBe(before + 1);
  });
});
