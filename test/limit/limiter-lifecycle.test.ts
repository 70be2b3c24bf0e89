import { describe, expect, it } from 'vitest';
import { LimiterClosedError } from '../../src/limit/errors.js';
import { LimiterSet } from '../../src/limit/limiter-set.js';
import type { LimiterEvent } from '../../src/limit/types.js';
import { apiError, scriptedSend, virtualLimiter } from './helpers.js';
import { VirtualTime } from './virtual-time.js';

describe('Limiter priorities (virtual time)', () => {
  it('a queued live call goes before every queued backfill call; FIFO within a priority', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 1000 });
    const order: string[] = [];
    const call = (name: string, priority: 'live' | 'backfill') =>
      limiter.run(async () => void order.push(name), { priority });
    const all = [
      call('first', 'backfill'), // takes the only slot at once
      call('b1', 'backfill'),
      call('b2', 'backfill'),
      call('l1', 'live'),
      call('b3', 'backfill'),
      call('l2', 'live'),
    ];
    await vt.run(Promise.all(all));
    expect(order).toEqual(['first', 'l1', 'l2', 'b1', 'b2', 'b3']);
  });

  it('a retry keeps its place in line ahead of calls queued after it', async () => {
    const { vt, limiter } = virtualLimiter(
      { calls: 1, periodMs: 1000 },
      { marginMs: 0, backoff: { baseMs: 0, capMs: 0 } },
    );
    const order: string[] = [];
    const flaky = scriptedSend(vt, [apiError(500)]);
    const first = limiter.run(async () => {
      order.push('A');
      return flaky.send();
    });
    const second = limiter.run(async () => void order.push('B'));
    await vt.run(Promise.all([first, second]));
    expect(order).toEqual(['A', 'A', 'B']);
  });
});

describe('Limiter shutdown and abort (virtual time)', () => {
  it('close() rejects queued calls with LimiterClosedError and waits for the call in flight', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 60_000 });
    let finished = false;
    const inFlight = limiter.run(async () => {
      await vt.sleep(500);
      finished = true;
      return 'done';
    });
    const queued = limiter.run(async () => 'never');
    await vt.settle();
    const closed = limiter.close();
    await expect(queued).rejects.toBeInstanceOf(LimiterClosedError);
    await vt.run(closed);
    expect(finished).toBe(true);
    await expect(inFlight).resolves.toBe('done');
    await expect(limiter.run(async () => 1)).rejects.toBeInstanceOf(LimiterClosedError);
  });

  it('close() ends a call waiting to retry, with the API error as cause', async () => {
    const { vt, limiter } = virtualLimiter(null, { backoff: { baseMs: 60_000, capMs: 60_000 } });
    const { send } = scriptedSend(vt, [apiError(503)]);
    const call = limiter.run(send).catch((e: unknown) => e);
    await vt.settle();
    await vt.run(limiter.close());
    const err = await call;
    expect(err).toBeInstanceOf(LimiterClosedError);
    expect((err as Error).cause).toMatchObject({ status: 503 });
  });

  it('drain() refuses new calls but lets queued ones run', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 1000 });
    const results = [limiter.run(async () => 1), limiter.run(async () => 2)];
    const drained = limiter.drain();
    await expect(limiter.run(async () => 3)).rejects.toBeInstanceOf(LimiterClosedError);
    await vt.run(drained);
    await expect(Promise.all(results)).resolves.toEqual([1, 2]);
  });

  it('an aborted queued call is removed without taking a slot', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 1000 }, { marginMs: 0 });
    const sent: string[] = [];
    const first = limiter.run(async () => void sent.push('first'));
    const abort = new AbortController();
    const aborted = limiter.run(async () => void sent.push('aborted'), { signal: abort.signal });
    const third = limiter.run(async () => void sent.push('third'));
    await vt.settle();
    abort.abort(new Error('job cancelled'));
    await expect(aborted).rejects.toThrow('job cancelled');
    await vt.run(Promise.all([first, third]));
    expect(sent).toEqual(['first', 'third']);
    expect(vt.now() - Date.UTC(2024, 0, 1)).toBe(1000);
  });

  it('an already aborted signal throws before queuing', async () => {
    const { limiter } = virtualLimiter(null);
    await expect(limiter.run(async () => 1, { signal: AbortSignal.abort(new Error('stop')) })).rejects.toThrow('stop');
    expect(limiter.snapshot().queued).toBe(0);
  });

  it('a throwing telemetry hook does not break calls', async () => {
    const { vt, limiter } = virtualLimiter(null, {
      onEvent: () => {
        throw new Error('telemetry down');
      },
    });
    await expect(vt.run(limiter.run(async () => 42))).resolves.toBe(42);
  });
});

describe('LimiterSet', () => {
  function limiterSet() {
    const vt = new VirtualTime();
    const events: LimiterEvent[] = [];
    const set = new LimiterSet(
      { statistic: { calls: 1, periodMs: 60_000 }, streamstat: { calls: 30, periodMs: 60_000 }, metrics: null },
      { clock: vt, sleep: vt.sleep, marginMs: 0, onEvent: (e) => events.push(e) },
    );
    return { vt, set, events };
  }

  it('routes each API to its own limiter: a full statistic quota does not hold streamstat calls', async () => {
    const { vt, set } = limiterSet();
    const gate = set.gate('live');
    const sentAt: Record<string, number> = {};
    await gate('statistic', async () => (sentAt.s1 = vt.now()));
    const s2 = gate('statistic', async () => (sentAt.s2 = vt.now()));
    const ss = gate('streamstat', async () => (sentAt.ss = vt.now()));
    const dvr = gate('dvr', async () => (sentAt.dvr = vt.now())); // absent from the set: no quota
    await vt.run(Promise.all([s2, ss, dvr]));
    expect(sentAt.ss).toBe(sentAt.s1);
    expect(sentAt.dvr).toBe(sentAt.s1);
    expect(sentAt.s2! - sentAt.s1!).toBe(60_000);
  });

  it('gate(priority) queues with that priority', async () => {
    const { vt, set } = limiterSet();
    const order: string[] = [];
    const live = set.gate('live');
    const backfill = set.gate('backfill');
    const all = [
      backfill('statistic', async () => void order.push('b0')),
      backfill('statistic', async () => void order.push('b1')),
      live('statistic', async () => void order.push('l1')),
    ];
    await vt.run(Promise.all(all));
    expect(order).toEqual(['b0', 'l1', 'b1']);
  });

  it('events name the API', async () => {
    const { vt, set, events } = limiterSet();
    await vt.run(set.run('metrics', async () => ({ status: 200 })));
    expect(events).toEqual([{ type: 'call', api: 'metrics', attempt: 1, status: 200 }]);
  });

  it('each failed attempt is one call event with its error and its class: the stream every watcher reads', async () => {
    const { vt, set, events } = limiterSet();
    const [first, second] = [apiError(503, undefined, 'metrics'), apiError(404, undefined, 'metrics')];
    const { send } = scriptedSend(vt, [first, second]);
    await vt.run(set.run('metrics', send).catch(() => undefined));
    expect(events.filter((e) => e.type === 'call')).toEqual([
      expect.objectContaining({ attempt: 1, error: first, failure: { class: 'transient', operator: false } }),
      expect.objectContaining({ attempt: 2, status: 404, error: second, failure: { class: 'span', operator: true } }),
    ]);
  });

  it('close() rejects what is queued on every API', async () => {
    const { vt, set } = limiterSet();
    await vt.run(set.run('statistic', async () => 1));
    const queued = set.run('statistic', async () => 2).catch((e: unknown) => e);
    await vt.run(set.close());
    expect(await queued).toBeInstanceOf(LimiterClosedError);
    await expect(set.run('metrics', async () => 3)).rejects.toBeInstanceOf(LimiterClosedError);
  });
});
