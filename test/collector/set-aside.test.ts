import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, ResponseFormatError, type RequestInfo } from '../../src/http/errors.js';
import { ParameterError } from '../../src/errors.js';
import { MAX_SET_ASIDE_PER_JOB } from '../../src/state/set-aside.js';
import { fakeCollector, MIN, setAsideByJob, T0 } from '../helpers/fake-job.js';

const request: RequestInfo = { api: 'metrics', method: 'GET', url: 'http://api.test/app/metrics/v1/' };
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A collector of one fake job on a temp state dir (removed after each test). */
async function setup(fail: (i: number) => Error | undefined, lookbackMin = 4) {
  const dir = mkdtempSync(join(tmpdir(), 'set-aside-'));
  dirs.push(dir);
  return fakeCollector(dir, fail, lookbackMin);
}

describe('permanent and transient span failures', () => {
  const permanent: Array<[string, Error]> = [
    ['a body that does not fit the schema', new ResponseFormatError(request, 'data.0.x: Expected number', '{}')],
    ['HTTP 400', new ApiError({ status: 400, body: {}, request })],
    ['HTTP 404', new ApiError({ status: 404, body: {}, request })],
    ['a parameter the spec refuses', new ParameterError('end', 'period must be 1 to 10 minutes')],
  ];
  const transient: Array<[string, Error]> = [
    ['a body that is not JSON', new ResponseFormatError(request, 'body is not JSON', '<html>', 'not-json')],
    ['HTTP 401 (the token, not the span)', new ApiError({ status: 401, body: {}, request })],
    ['HTTP 403 (the token, not the span)', new ApiError({ status: 403, body: {}, request })],
    ['HTTP 429', new ApiError({ status: 429, body: {}, request })],
    ['HTTP 503', new ApiError({ status: 503, body: {}, request })],
    ['a network error', new NetworkError(request, 'ECONNRESET')],
  ];

  it.each(permanent)('%s sets the span aside and the pass goes on', async (_, err) => {
    const t = await setup((i) => (i === 1 ? err : undefined));
    const result = await t.collector.runOnce(t.job, 'live');
    expect(result).toMatchObject({ spans: 3, setAside: 1 });
    expect(result.error).toBeUndefined();
    expect(t.store.missing(t.job.key, T0, T0 + 4 * MIN)).toEqual([{ from: T0 + MIN, to: T0 + 2 * MIN }]);
    expect(t.aside.list(t.job.key)).toMatchObject([
      { from: T0 + MIN, attempts: 1, nextRetryAt: t.clock.now() + 10 * MIN },
    ]);
    expect(setAsideByJob(t.collector)).toEqual({ 'fake/job': 1 });
    await t.close();
  });

  it.each(transient)('%s ends the pass as today; nothing is set aside', async (_, err) => {
    const t = await setup((i) => (i === 1 ? err : undefined));
    const result = await t.collector.runOnce(t.job, 'live');
    expect(result).toMatchObject({ spans: 1, setAside: 0 });
    expect(result.error).toBeDefined();
    expect(t.aside.keys()).toEqual([]);
    expect(t.collector.pending(t.job)).toHaveLength(3);
    await t.close();
  });
});

describe('set-aside spans and the job', () => {
  it('a set-aside first span is not left behind the origin: its retry comes, slower each time it fails', async () => {
    let healed = false;
    const t = await setup((i) => (i === 0 && !healed ? new ApiError({ status: 400, body: {}, request }) : undefined));
    await t.collector.runOnce(t.job, 'live');
    expect(t.store.confirmed(t.job.key)).toEqual([{ from: T0 + MIN, to: T0 + 4 * MIN }]);
    expect(t.collector.pending(t.job)).toEqual([]);
    t.clock.advance(10 * MIN);
    expect(t.collector.pending(t.job)[0]).toEqual({ from: T0, to: T0 + MIN });
    await t.collector.runOnce(t.job, 'live');
    expect(t.aside.list(t.job.key)).toMatchObject([{ from: T0, attempts: 2, nextRetryAt: t.clock.now() + 20 * MIN }]);
    healed = true;
    t.clock.advance(20 * MIN);
    await t.collector.runOnce(t.job, 'live');
    expect(t.aside.keys()).toEqual([]);
    expect(t.store.missing(t.job.key, T0, t.clock.now())).toEqual([]);
    expect(t.calls.filter((i) => i === 0)).toHaveLength(3);
    await t.close();
  });

  it(
    'a job whose every span fails stops advancing at the ' + 'cap instead of growing the list or dropping spans',
    async () => {
      const lookback = MAX_SET_ASIDE_PER_JOB + 10;
      const t = await setup(() => new ApiError({ status: 400, body: {}, request }), lookback);
      const result = await t.collector.runOnce(t.job, 'live');
      expect(result).toMatchObject({ spans: 0, setAside: MAX_SET_ASIDE_PER_JOB });
      expect(result.error).toMatch(/HTTP 400/);
      expect(t.aside.list(t.job.key)).toHaveLength(MAX_SET_ASIDE_PER_JOB);
      // The rest stays pending (collected, or set aside once room frees up); the next pass spends one call and stops.
      expect(t.collector.pending(t.job)).toHaveLength(10);
      const calls = t.calls.length;
      await t.collector.runOnce(t.job, 'live');
      expect(t.calls.length).toBe(calls + 1);
      await t.close();
    },
  );
});
