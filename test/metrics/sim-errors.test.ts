import { describe, expect, it } from 'vitest';
import { SPECIAL_TOKENS } from '../../src/sim/auth.js';
import { MINUTE_PRECISION_TEXT, START_BEFORE_END_TEXT } from '../../src/sim/routes/metrics.js';
import { baseQuery, END, rawGet, START } from './helpers.js';
import { useSimInProcess, simFetch } from '../helpers/in-process.js';

const ctx = useSimInProcess();
const UNPROCESSABLE = 'Unprocessable Entity';

describe('metrics simulator: its own error answers (raw HTTP, no client checks)', () => {
  const account = () => ctx.sim.accounts[0]!;

  it('answers the spec text for seconds other than 00, as 422', async () => {
    const reply = await rawGet(ctx.sim, '/', [
      ['account', account()],
      ['start', '2024-05-01T10:00:30'],
      ['end', END],
    ]);
    expect(reply).toEqual({
      status: 422,
      body: { status: UNPROCESSABLE, description: 'Invalid time format. Time must be at minute precision' },
    });
    expect(MINUTE_PRECISION_TEXT).toBe('Invalid time format. Time must be at minute precision');
  });

  it('answers 422 "start must be less then end" when end is not after start', async () => {
    for (const end of [START, '2024-05-01T09:59:00']) {
      const reply = await rawGet(ctx.sim, '/resources', [
        ['account', account()],
        ['start', START],
        ['end', end],
      ]);
      expect(reply).toEqual({ status: 422, body: { status: UNPROCESSABLE, description: START_BEFORE_END_TEXT } });
    }
  });

  it.each([
    [
      'missing account',
      [
        ['start', START],
        ['end', END],
      ],
      /account/,
    ],
    [
      'missing start',
      [
        ['account', 'acme'],
        ['end', END],
      ],
      /start/,
    ],
    [
      'missing end',
      [
        ['account', 'acme'],
        ['start', START],
      ],
      /end/,
    ],
    [
      'unparsable start',
      [
        ['account', 'acme'],
        ['start', 'yesterday'],
        ['end', END],
      ],
      /start/,
    ],
    [
      'impossible date',
      [
        ['account', 'acme'],
        ['start', '2024-02-30T10:00:00'],
        ['end', END],
      ],
      /start/,
    ],
    [
      'period of 11 minutes',
      [
        ['account', 'acme'],
        ['start', START],
        ['end', '2024-05-01T10:11:00'],
      ],
      /1 to 10 minutes/,
    ],
    [
      'unknown metric',
      baseQuery('acme', ['metric', 'edge_bandwidth'], ['metric', 'edge_status_418']),
      /edge_status_418/,
    ],
    ['comma-joined metrics', baseQuery('acme', ['metric', 'edge_bandwidth,edge_status_200']), /Unknown metric/],
    ['unknown resource', baseQuery('acme', ['resource', '1']), /resource/],
    ['unknown query parameter', baseQuery('acme', ['granularity', '1m']), /Unknown query parameter: granularity/],
    ['token in the query (header only for metrics)', baseQuery('acme', ['cdnauthtoken', 'x']), /cdnauthtoken/],
    ['account given twice', baseQuery('acme', ['account', 'acme']), /account/],
  ] as Array<[string, Array<[string, string]>, RegExp]>)(
    'answers 422 for %s, naming the culprit',
    async (_title, query, text) => {
      const reply = await rawGet(ctx.sim, '/', query);
      expect(reply.status).toBe(422);
      expect(reply.body.status).toBe(UNPROCESSABLE);
      expect(reply.body.description).toMatch(text);
      expect(reply.body).not.toHaveProperty('data');
    },
  );

  it('accepts a period of exactly 10 minutes', async () => {
    const reply = await rawGet(ctx.sim, '/', [
      ['account', account()],
      ['start', START],
      ['end', '2024-05-01T10:10:00'],
    ]);
    expect(reply.status).toBe(200);
  });

  it('answers 403 Forbidden for an expired token, a wrong token and no token', async () => {
    for (const token of [SPECIAL_TOKENS.expired, 'wrong-token', null]) {
      const reply = await rawGet(ctx.sim, '/', baseQuery(account()), token);
      expect(reply.status, String(token)).toBe(403);
      expect(reply.body.status).toBe('Forbidden');
      expect(typeof reply.body.description).toBe('string');
    }
  });

  it('answers 403 for an account the token may not read, and for one that does not exist', async () => {
    ctx.sim.addToken('only-first-account', { accounts: [account()] });
    for (const other of [ctx.sim.accounts[1]!, 'no-such-account']) {
      const reply = await rawGet(ctx.sim, '/resources', baseQuery(other), 'only-first-account');
      expect(reply).toMatchObject({ status: 403, body: { status: 'Forbidden' } });
    }
  });

  it('does not accept the token as a query parameter (header only)', async () => {
    const reply = await rawGet(ctx.sim, '/', baseQuery(account(), ['cdnauthtoken', ctx.sim.token]), null);
    expect(reply.status).toBe(403);
  });

  it('answers 404 for an unknown sub-path', async () => {
    for (const path of ['/resource', '/resources/1', '/v2']) {
      const reply = await rawGet(ctx.sim, path, baseQuery(account()));
      expect(reply.status, path).toBe(404);
    }
  });

  it('answers 405 for a method other than GET (read-only service)', async () => {
    const qs = new URLSearchParams(baseQuery(account())).toString();
    const res = await simFetch(`${ctx.sim.url}/app/metrics/v1/?${qs}`, {
      method: 'DELETE',
      headers: { 'cdn-auth-token': ctx.sim.token },
    });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ status: 'Method Not Allowed' });
  });

  it('answers a success with status OK, the echo, the metrics list and data', async () => {
    const reply = await rawGet(
      ctx.sim,
      '/',
      baseQuery(account(), ['metric', 'edge_hit_ratio'], ['metric', 'edge_hit_ratio']),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'OK',
      start: START,
      end: END,
      account: account(),
      metrics: ['edge_hit_ratio'],
    });
    expect(reply.body.data).toEqual([{ edge_hit_ratio: expect.any(Number) }]);
  });
});
