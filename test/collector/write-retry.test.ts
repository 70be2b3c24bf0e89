import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SinkError } from '../../src/sink/errors.js';
import { retryingSink, type RetryingSinkOptions } from '../../src/sink/retrying.js';
import type { Sink } from '../../src/sink/types.js';

function flakySink(errors: SinkError[]): Sink & { calls: number; flushed: number; closed: number } {
  const sink = {
    name: 'fake',
    calls: 0,
    flushed: 0,
    closed: 0,
    async write() {
      sink.calls++;
      const err = errors.shift();
      if (err) throw err;
      return { written: 1, rejected: 0 };
    },
    flush: async () => {
      sink.flushed++;
    },
    close: async () => {
      sink.closed++;
    },
  };
  return sink;
}

/** One write through the retrying decorator. */
const writeWithRetry = (sink: Sink, points: [], options: RetryingSinkOptions) =>
  retryingSink(sink, options).write(points);

/** Retries on virtual time: each wait moves the injected clock instead of sleeping. */
function virtualTime(
  options: Omit<RetryingSinkOptions, 'clock' | 'sleep'>,
): RetryingSinkOptions & { clock: ManualClock } {
  const clock = new ManualClock(0);
  return { ...options, clock, sleep: async (ms) => clock.advance(ms) };
}

describe('writes through a database outage', () => {
  const down = () => new SinkError('fake', undefined, true, 'ECONNREFUSED');

  it('retries retryable failures until the database answers', async () => {
    const sink = flakySink([down(), down()]);
    const retries: number[] = [];
    const result = await writeWithRetry(
      sink,
      [],
      virtualTime({ deadlineMs: 10_000, onRetry: (_e, ms) => retries.push(ms) }),
    );
    expect(result).toEqual({ written: 1, rejected: 0 });
    expect(sink.calls).toBe(3);
    expect(retries).toHaveLength(2);
  });

  it('throws a non-retryable failure at once', async () => {
    const sink = flakySink([new SinkError('fake', 401, false, 'unauthorized')]);
    await expect(writeWithRetry(sink, [], virtualTime({ deadlineMs: 10_000 }))).rejects.toThrow(/unauthorized/);
    expect(sink.calls).toBe(1);
  });

  it('gives up at the deadline or when stopping, so the span stays unconfirmed', async () => {
    const sink = flakySink([down(), down(), down()]);
    await expect(writeWithRetry(sink, [], virtualTime({ deadlineMs: 0 }))).rejects.toThrow(/ECONNREFUSED/);
    await expect(
      writeWithRetry(sink, [], virtualTime({ deadlineMs: 10_000, stop: AbortSignal.abort() })),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(sink.calls).toBe(2);
  });

  it('measures the deadline and the waits on the injected clock', async () => {
    const sink = flakySink(Array.from({ length: 100 }, down));
    const options = virtualTime({ deadlineMs: 60_000 });
    await expect(writeWithRetry(sink, [], options)).rejects.toThrow(/ECONNREFUSED/);
    expect(sink.calls).toBeGreaterThan(2);
    expect(options.clock.now()).toBeGreaterThan(0);
    expect(options.clock.now()).toBeLessThanOrEqual(60_000);
  });

  it('is a sink: its name, flush and close are the wrapped one', async () => {
    const inner = flakySink([]);
    const sink = retryingSink(inner, virtualTime({ deadlineMs: 10_000 }));
    await sink.flush();
    await sink.close();
    expect(sink.name).toBe('fake');
    expect([inner.flushed, inner.closed]).toEqual([1, 1]);
  });
});
