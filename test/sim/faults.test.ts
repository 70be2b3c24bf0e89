import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError, ResponseFormatError, TimeoutError } from '../../src/http/errors.js';
import { parseFaultFlag, type FaultKind } from '../../src/sim/faults.js';
import { API_NAMES } from '../../src/spec/apis.js';
import { MetricsClient } from '../../src/sources/metrics/client.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { useSimInProcess, simClient, simRequest } from '../helpers/in-process.js';

const window = { account: 'acme', start: '2026-11-20T10:00:00Z', end: '2026-11-20T10:05:00Z' };

describe('injected faults reach the client as typed errors', () => {
  const s = useSimInProcess();
  const metrics = () => new MetricsClient(simClient(s.sim, { token: s.sim.token, timeoutMs: 300 }));

  const cases: Array<[FaultKind, (err: unknown) => void]> = [
    ['429', (e) => expect(e).toMatchObject({ status: 429, retryAfterSec: 2 })],
    ['500', (e) => expect(e).toMatchObject({ status: 500 })],
    ['504', (e) => expect(e).toMatchObject({ status: 504, description: 'Gateway Timeout error' })],
    ['reset', (e) => expect(e).toBeInstanceOf(NetworkError)],
    ['slow', (e) => expect(e).toBeInstanceOf(TimeoutError)],
    ['malformed', (e) => expect(e).toBeInstanceOf(ResponseFormatError)],
  ];
  it.each(cases)('%s', async (kind, check) => {
    s.sim.faults.set('metrics', { script: [kind], slowMs: 1000, retryAfterSec: 2 });
    const err = await metrics()
      .aggregate(window)
      .catch((e: unknown) => e);
    check(err);
    if (kind === '429' || kind === '500' || kind === '504') expect(err).toBeInstanceOf(ApiError);
    expect(String(err)).not.toContain(s.sim.token);
    // The script is used up: the next call succeeds.
    await expect(metrics().aggregate(window)).resolves.toMatchObject({ account: 'acme' });
  });

  it('a rate injects faults into about that share of calls, deterministically from the seed', async () => {
    s.sim.faults.set('statistic', { rate: 0.5, kinds: ['500'] });
    s.sim.quota.setRule('statistic', null);
    const client = new StatisticClient(simClient(s.sim, { token: s.sim.token }));
    let failed = 0;
    for (let i = 0; i < 40; i++) await client.total(window).catch(() => failed++);
    s.sim.faults.set('statistic', undefined);
    expect(failed).toBeGreaterThan(10);
    expect(failed).toBeLessThan(30);
    expect(s.sim.faults.injected.statistic['500']).toBe(failed);
  });

  it('can be set from another process through PUT /_sim/faults/<api>', async () => {
    const res = await simRequest(`${s.sim.url}/_sim/faults/dvr`, {
      method: 'PUT',
      body: JSON.stringify({ script: ['504'] }),
    });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    expect(s.sim.faults.get('dvr')?.script).toEqual(['504']);
    const bad = await simRequest(`${s.sim.url}/_sim/faults/dvr`, {
      method: 'PUT',
      body: JSON.stringify({ kinds: ['boom'] }),
    });
    expect(bad.statusCode).toBe(400);
    await bad.body.dump();
  });

  it('parses the --fault flag and names what is wrong', () => {
    expect(parseFaultFlag('all=reset,slow:0.2')).toEqual({
      apis: API_NAMES,
      plan: { rate: 0.2, kinds: ['reset', 'slow'] },
    });
    expect(() => parseFaultFlag('statistic=boom')).toThrow(/unknown fault kind "boom"/);
    expect(() => parseFaultFlag('statistic=500:2')).toThrow(/rate/);
  });
});
