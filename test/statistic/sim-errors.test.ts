import { isRetryable } from '../../src/failure.js';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { SPECIAL_TOKENS } from '../../src/sim/auth.js';
import { clientFor, newClock, raw, WINDOW } from './helpers.js';
import { useSimInProcess, simInProcess } from '../helpers/in-process.js';

const ctx = useSimInProcess({ clock: newClock(), quotas: { statistic: null } });
const W = { start: '2026-03-10T08:00:00Z', end: '2026-03-10T10:00:00Z' };

async function error(path: string, query: Record<string, string>, init?: Parameters<typeof raw>[3]) {
  const res = await raw(ctx.sim, path, query, init);
  return { status: res.status, status_text: res.body.status, data: res.body.data };
}

describe('table A errors from the simulator (raw calls, no client)', () => {
  it('401 token is invalid: no token, an unknown token, an expired token', async () => {
    expect(await error('/', W, { token: 'none' })).toEqual({
      status: 401,
      status_text: 'error',
      data: 'token is invalid',
    });
    expect((await error('/', W, { headers: { 'cdn-auth-token': 'nope' } })).data).toBe('token is invalid');
    expect((await error('/', { ...W, cdnauthtoken: SPECIAL_TOKENS.expired }, { token: 'none' })).status).toBe(401);
  });

  it('401 no accounts available', async () => {
    expect(await error('/', W, { headers: { 'cdn-auth-token': SPECIAL_TOKENS.noAccounts } })).toMatchObject({
      status: 401,
      data: 'no accounts available',
    });
  });

  it('401 account: an account the token cannot read', async () => {
    expect(await error('/', { ...W, account: 'not-mine' })).toMatchObject({ status: 401, data: 'account' });
  });

  it('400 unknown path', async () => {
    for (const path of ['/nope', '/times/nope', '/times/codes/extra', '/streams']) {
      expect(await error(path, W), path).toMatchObject({ status: 400, data: 'unknown path' });
    }
  });

  it('400 required key: start, end, and granularity on time endpoints', async () => {
    expect(await error('/', { end: W.end })).toMatchObject({ status: 400, data: 'required key: start' });
    expect(await error('/codes', { start: W.start })).toMatchObject({ status: 400, data: 'required key: end' });
    expect(await error('/times/codes', W)).toMatchObject({ status: 400, data: 'required key: granularity' });
  });

  it('400 naming the key a particular path requires: account on /hosts, host on /paths', async () => {
    expect(await error('/hosts', W)).toMatchObject({ status: 400, data: 'required key: account' });
    expect(await error('/times/paths', { ...W, granularity: 'PT1H', account: ctx.sim.accounts[0]! })).toMatchObject({
      status: 400,
      data: 'required key: host',
    });
  });

  it('400 unknown parameter, naming it: unknown names and parameters a path does not take (A2)', async () => {
    const cases: Array<[string, Record<string, string>, string]> = [
      ['/', { foo: '1' }, 'foo'],
      ['/', { sort: '-traffic' }, 'sort'],
      ['/', { limit: '5' }, 'limit'],
      ['/', { granularity: 'PT1H' }, 'granularity'],
      ['/codes', { timezone: 'UTC' }, 'timezone'],
      ['/times', { granularity: 'PT1H', sort: '-traffic' }, 'sort'],
      ['/hosts', { account: ctx.sim.accounts[0]!, path: '/' }, 'path'],
      ['/countries', { region: 'RU-MOW' }, 'region'],
      ['/accounts', { resource: '1' }, 'resource'],
    ];
    for (const [path, extra, name] of cases) {
      expect(await error(path, { ...W, ...extra }), `${path} ${name}`).toMatchObject({
        status: 400,
        data: `unknown parameter: ${name}`,
      });
    }
  });

  it('400 invalid value, naming the parameter', async () => {
    const cases: Array<[string, Record<string, string>, string]> = [
      ['/', { start: '2026-03-10T08:00:30Z' }, 'start'],
      ['/', { end: 'tomorrow' }, 'end'],
      // an unencoded `+` in an offset arrives as a space
      ['/', { start: '2026-03-10T11:00:00 03:00' }, 'start'],
      ['/', { service: 'video' }, 'service'],
      ['/', { code: 'ok' }, 'code'],
      ['/', { fields: 'traffic,views' }, 'fields'],
      ['/codes', { limit: '0' }, 'limit'],
      ['/codes', { limit: String(ctx.sim.settings.maxLimit + 1) }, 'limit'],
      ['/codes', { offset: '-1' }, 'offset'],
      ['/codes', { sort: 'traffic desc' }, 'sort'],
      ['/codes', { sort: '-views' }, 'sort'],
      ['/times', { granularity: 'PT1H', timezone: 'Mars/Olympus' }, 'timezone'],
      ['/', { language: 'fr' }, 'language'],
    ];
    for (const [path, extra, name] of cases) {
      expect(await error(path, { ...W, ...extra }), `${path} ${name}`).toMatchObject({
        status: 400,
        data: `invalid value: ${name}`,
      });
    }
    const repeated = await raw(ctx.sim, '/', `start=${W.start}&end=${W.end}&country=RU&country=US`);
    expect(repeated.body.data).toBe('invalid value: country');
  });

  it('400 start must be less then end', async () => {
    expect(await error('/', { start: W.end, end: W.start })).toMatchObject({
      status: 400,
      data: 'start must be less then end',
    });
    expect(await error('/', { start: W.start, end: W.start })).toMatchObject({
      status: 400,
      data: 'start must be less then end',
    });
    // an offset is honoured: 11:00+03:00 is 08:00Z, so this window is empty
    const offsets = await raw(ctx.sim, '/', `start=2026-03-10T11:00:00%2B03:00&end=${W.start}`);
    expect(offsets.body.data).toBe('start must be less then end');
  });

  it('400 granularity is not correct', async () => {
    for (const granularity of ['P1DT12H', 'PT0M', 'minute', 'PT30S', 'PT1S']) {
      expect(await error('/times', { ...W, granularity }), granularity).toMatchObject({
        status: 400,
        data: 'granularity is not correct',
      });
    }
  });

  it('the client maps an error body to ApiError with the data text', async () => {
    const client = clientFor(ctx.sim);
    const err = await client.total({ ...WINDOW, account: 'not-mine' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).description).toBe('account');
    expect((err as ApiError).message).not.toContain(ctx.sim.token);
  });
});

describe('token placement', () => {
  it('accepts the token in the header and in cdnauthtoken, through the client', async () => {
    for (const tokenPlacement of ['header', 'query'] as const) {
      const res = await clientFor(ctx.sim, { tokenPlacement }).total(WINDOW);
      expect(res.body.traffic, tokenPlacement).toBeGreaterThan(0);
    }
  });

  it('cdnauthtoken wins over the header', async () => {
    const good = await raw(
      ctx.sim,
      '/',
      { ...W, cdnauthtoken: ctx.sim.token },
      { headers: { 'cdn-auth-token': 'wrong' } },
    );
    expect(good.status).toBe(200);
    const bad = await raw(
      ctx.sim,
      '/',
      { ...W, cdnauthtoken: 'wrong' },
      { headers: { 'cdn-auth-token': ctx.sim.token } },
    );
    expect(bad).toMatchObject({ status: 401, body: { data: 'token is invalid' } });
  });

  it('a query token never appears in an ApiError', async () => {
    const err = (await clientFor(ctx.sim, { tokenPlacement: 'query' })
      .total({ ...WINDOW, account: 'not-mine' })
      .catch((e: unknown) => e)) as ApiError;
    expect(err.request.url).toContain('cdnauthtoken=***');
    expect(JSON.stringify({ m: err.message, r: err.request })).not.toContain(ctx.sim.token);
  });
});

describe('language: parameter, then Accept-Language, else en; echoed in the Accept-Language header', () => {
  it('resolves in that order and names countries in the language', async () => {
    const header = async (query: Record<string, string>, accept?: string) => {
      const res = await raw(
        ctx.sim,
        '/countries',
        { ...W, ...query },
        accept ? { headers: { 'accept-language': accept } } : {},
      );
      const names = (res.body.result as Array<{ country: string; country_name: string }>).find(
        (r) => r.country === 'RU',
      )?.country_name;
      return [res.headers.get('accept-language'), names];
    };
    expect(await header({})).toEqual(['en', 'Russia']);
    expect(await header({}, 'ru-RU,ru;q=0.9,en;q=0.8')).toEqual(['ru', 'Россия']);
    expect(await header({}, 'de-DE')).toEqual(['en', 'Russia']);
    expect(await header({ language: 'en' }, 'ru')).toEqual(['en', 'Russia']);
    expect(await header({ language: 'ru' }, 'en')).toEqual(['ru', 'Россия']);
  });

  it('the client sends its default language and returns the one used', async () => {
    const ru = await clientFor(ctx.sim, { language: 'ru' }).grouped('regions', { ...WINDOW, country: 'RU' });
    expect(ru.language).toBe('ru');
    expect(ru.body.result.map((r) => r.region_name)).toContain('Москва');
    const en = await clientFor(ctx.sim, { language: 'ru' }).total({ ...WINDOW, language: 'en' });
    expect(en.language).toBe('en');
  });
});

describe('quota: 5 calls per minute', () => {
  it('the 6th call within the period gets 429 with Retry-After', async () => {
    const clock = newClock();
    const sim = simInProcess({ clock });
    try {
      for (let i = 0; i < 5; i++) expect((await raw(sim, '/', W)).status).toBe(200);
      clock.advance(30_000);
      const sixth = await raw(sim, '/', W);
      expect(sixth.status).toBe(429);
      expect(sixth.body.data).toBe('Too Many Requests');
      expect(sixth.headers.get('retry-after')).toBe('30');
      const err = await clientFor(sim)
        .total(WINDOW)
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 429, retryAfterSec: 30 });
      expect(isRetryable(err)).toBe(true);
      clock.advance(30_000);
      expect((await raw(sim, '/', W)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
