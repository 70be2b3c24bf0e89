import { describe, expect, it } from 'vitest';
import { SPECIAL_TOKENS } from '../../src/sim/auth.js';
import { newClock, rawGet, WINDOW } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

// Many calls at one frozen instant: the quota has its own test (quota.test.ts).
const ctx = useSimInProcess({ clock: newClock(), quotas: { streamstat: null } });
const ok = { ...WINDOW };

/** Table B rows, with the body shape chosen for the statistics APIs: {status:'error', data:'<text>'}. */
async function expectError(
  path: string,
  params: Record<string, string | string[]>,
  status: number,
  data: string | RegExp,
): Promise<void> {
  const res = await rawGet(ctx.sim, path, params);
  expect(res.status).toBe(status);
  const body = res.body as { status: string; data: string };
  expect(body.status).toBe('error');
  if (typeof data === 'string') expect(body.data).toBe(data);
  else expect(body.data).toMatch(data);
}

describe('streamstat simulator: table B errors', () => {
  it('200 for a valid request', async () => {
    const res = await rawGet(ctx.sim, '/', ok);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      start: WINDOW.start,
      end: WINDOW.end,
      fields: ['views', 'users', 'views_max'],
      account: null,
    });
  });

  it('400 validation fail: missing or unparsable time, seconds other than 00, a zone offset', async () => {
    await expectError('/', { start: WINDOW.start }, 400, 'validation fail');
    await expectError('/', { ...ok, start: 'soon' }, 400, 'validation fail');
    await expectError('/', { ...ok, start: '2026-03-10T08:00:30' }, 400, 'validation fail');
    await expectError('/', { ...ok, start: '2026-02-30T08:00:00Z' }, 400, 'validation fail');
    await expectError('/', { ...ok, start: '2026-03-10T08:00:00+03:00' }, 400, 'validation fail');
  });

  it('start without the trailing Z is accepted as UTC', async () => {
    const res = await rawGet(ctx.sim, '/', { start: '2026-03-10T08:00:00', end: '2026-03-10T09:00:00' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ start: WINDOW.start });
  });

  it('400 validation fail: unknown parameter, repeated single parameter, sort/offset/limit on /', async () => {
    await expectError('/', { ...ok, resource: '1' }, 400, 'validation fail');
    await expectError('/', { ...ok, account: ['acme', 'globex'] }, 400, 'validation fail');
    await expectError('/', { ...ok, limit: '5' }, 400, 'validation fail');
  });

  it('400 validation fail: bad stream_type, bad fields, bad sort syntax', async () => {
    await expectError('/', { ...ok, stream_type: ['live', 'radio'] }, 400, 'validation fail');
    await expectError('/', { ...ok, fields: 'views,hits' }, 400, 'validation fail');
    await expectError('/streams', { ...ok, sort: '*views' }, 400, 'validation fail');
  });

  it('400 validation fail: offset without limit, region without country, stream without account', async () => {
    await expectError('/streams', { ...ok, offset: '5' }, 400, 'validation fail');
    await expectError('/', { ...ok, region: 'MOW' }, 400, 'validation fail');
    await expectError('/', { ...ok, stream: 'news' }, 400, 'validation fail');
  });

  it('400 sort argument not in fields', async () => {
    await expectError('/streams', { ...ok, fields: 'views', sort: '-users' }, 400, 'sort argument not in fields');
  });

  it('400 start must be less then end', async () => {
    await expectError('/', { start: WINDOW.end, end: WINDOW.start }, 400, 'start must be less then end');
    await expectError('/', { start: WINDOW.start, end: WINDOW.start }, 400, 'start must be less then end');
  });

  it('400 granularity is not correct', async () => {
    await expectError('/', { ...ok, granularity: 'PT10M' }, 400, 'granularity is not correct');
    await expectError('/streams', { ...ok, granularity: 'P1DT12H' }, 400, 'granularity is not correct');
  });

  it('422 message with details: limit or offset set incorrectly, language not ru/en', async () => {
    await expectError('/streams', { ...ok, limit: 'ten' }, 422, /^limit: must be an integer from 1 to 1000/);
    await expectError('/streams', { ...ok, limit: '1001' }, 422, /^limit:/);
    await expectError('/streams', { ...ok, limit: '5', offset: '-1' }, 422, /^offset:/);
    await expectError('/', { ...ok, language: 'de' }, 422, 'language: must be ru or en');
  });

  it('404 unknown path below the prefix', async () => {
    await expectError('/countries', ok, 404, 'unknown path');
    await expectError('/streams/extra', ok, 404, 'unknown path');
  });

  it('401 token is invalid / no accounts available / account', async () => {
    const noToken = await rawGet(ctx.sim, '/', ok, { token: 'none' });
    expect(noToken.status).toBe(401);
    expect(noToken.body).toEqual({ status: 'error', data: 'token is invalid' });
    const noAccounts = await rawGet(
      ctx.sim,
      '/',
      { ...ok, cdnauthtoken: SPECIAL_TOKENS.noAccounts },
      { token: 'none' },
    );
    expect(noAccounts.status).toBe(401);
    expect(noAccounts.body).toEqual({ status: 'error', data: 'no accounts available' });
    await expectError('/', { ...ok, account: 'not-ours' }, 401, 'account');
  });

  it(
    '500 Internal Server Error and 504 Gateway Timeout error (injected by the frame) ' + 'have the same body shape',
    async () => {
      ctx.sim.faults.set('streamstat', { script: ['500', '504'] });
      await expectError('/', ok, 500, 'Internal Server Error');
      await expectError('/', ok, 504, 'Gateway Timeout error');
      expect((await rawGet(ctx.sim, '/', ok)).status).toBe(200);
    },
  );

  it('token: the query parameter wins over the header, the header alone works', async () => {
    expect((await rawGet(ctx.sim, '/', ok, { token: 'header' })).status).toBe(200);
    const both = await rawGet(ctx.sim, '/', { ...ok, cdnauthtoken: 'wrong' }, { token: 'header' });
    expect(both.status).toBe(401);
  });
});

describe('streamstat simulator: language', () => {
  it('defaults to en, follows Accept-Language, and the language parameter wins', async () => {
    expect((await rawGet(ctx.sim, '/', ok)).headers.get('accept-language')).toBe('en');
    const header = await rawGet(ctx.sim, '/', ok, { headers: { 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.8' } });
    expect(header.headers.get('accept-language')).toBe('ru');
    const fallback = await rawGet(ctx.sim, '/', ok, { headers: { 'accept-language': 'de-DE' } });
    expect(fallback.headers.get('accept-language')).toBe('en');
    const param = await rawGet(ctx.sim, '/', { ...ok, language: 'en' }, { headers: { 'accept-language': 'ru' } });
    expect(param.headers.get('accept-language')).toBe('en');
    const ru = await rawGet(ctx.sim, '/streams', { ...ok, language: 'ru' });
    expect(ru.headers.get('accept-language')).toBe('ru');
  });
});
