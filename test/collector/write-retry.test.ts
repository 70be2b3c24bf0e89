import { describe, expect, it } from 'vitest';
import { writeWithRetry } from '../../src/collector/write-retry.js';
import { SinkError } from '../../src/sink/errors.js';
import type { Sink } from '../../src/sink/types.js';

function flakySink(errors: SinkError[]): Sink & { calls: number } {
  const sink = {
    name: 'fake',
    calls: 0,
    async write() {
      sink.calls++;
      const err = errors.shift();
      if (err) throw err;
      return { written: 1, rejected: 0 };
    },
    flush: async () => {},
    close: async () => {},
  };
  return sink;
}

describe('writes through a database outage', () => {
  const down = () => new SinkError('fake', undefined, true, 'ECONNREFUSED');

  it('retries retryable failures until the database answers', async () => {
    const sink = flakySink([down(), down()]);
    const retries: number[] = [];
    const result = await writeWithRetry(sink, [], { deadlineMs: 10_000, stopping: () => false, onRetry: (_e, ms) => retries.push(ms) });
    expect(result).toEqual({ written: 1, rejected: 0 });
    expect(sink.calls).toBe(3);
    expect(retries).toHaveLength(2);
  });

  it('throws a non-retryable failure at once', async () => {
    const sink = flakySink([new SinkError('fake', 401, false, 'unauthorized')]);
    await expect(writeWithRetry(sink, [], { deadlineMs: 10_000, stopping: () => false })).rejects.toThrow(/unauthorized/);
    expect(sink.calls).toBe(1);
  });

  it('gives up at the deadline or when stopping, so the span stays unconfirmed', async () => {
    const sink = flakySink([down(), down(), down()]);
    await expect(writeWithRetry(sink, [], { deadlineMs: 0, stopping: () => false })).rejects.toThrow(/ECONNREFUSED/);
    await expect(writeWithRetry(sink, [], { deadlineMs: 10_000, stopping: () => true })).rejects.toThrow(/ECONNREFUSED/);
    expect(sink.calls).toBe(2);
  });
});
