import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';
import { Limiter } from '../../src/limit/index.js';
import { QuotaJournal, type JournalEvent } from '../../src/state/quota-journal.js';

const PERIOD = 10_000;
const QUOTA = { calls: 2, periodMs: PERIOD };

/**
 * The limiter on the system clock, with fake timers: `vi.setSystemTime` steps the wall clock (as NTP or an operator
 * would) while timers and performance.now() — the monotonic time the server's window effectively runs on — do not move.
 */
describe('wall-clock steps do not move quota windows', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Sends record the monotonic time at which they reach the "server". */
  function limiterWithLog() {
    const sends: number[] = [];
    const limiter = new Limiter('statistic', QUOTA, { clock: systemClock, marginMs: 50 });
    const call = () =>
      limiter.run(async () => {
        sends.push(performance.now());
        return 'ok';
      });
    return { limiter, sends, call };
  }

  /** Most sends in any window of PERIOD (monotonic): what the server counts. */
  function busiestWindow(sends: number[]): number {
    return Math.max(...sends.map((s) => sends.filter((t) => t >= s && t < s + PERIOD).length));
  }

  it('three forward steps of 10 s grant nothing early', async () => {
    const { sends, call } = limiterWithLog();
    const calls = [call(), call()];
    await vi.advanceTimersByTimeAsync(0);
    for (let step = 0; step < 3; step++) {
      vi.setSystemTime(Date.now() + 10_000);
      calls.push(call());
      await vi.advanceTimersByTimeAsync(1000);
    }
    await vi.advanceTimersByTimeAsync(3 * PERIOD);
    await Promise.all(calls);
    expect(sends).toHaveLength(5);
    expect(busiestWindow(sends)).toBeLessThanOrEqual(QUOTA.calls);
  });

  it('a 120 s backward step does not stop calls', async () => {
    const { sends, call } = limiterWithLog();
    await Promise.all([call(), call()]);
    vi.setSystemTime(Date.now() - 120_000);
    const third = call();
    await vi.advanceTimersByTimeAsync(PERIOD + 100);
    expect(sends).toHaveLength(3);
    await third;
  });
});

describe('persisted completion times in the future', () => {
  it('are clamped to now, with a warning, instead of blocking the API for a day', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-future-'));
    const clock = new ManualClock(Date.UTC(2024, 0, 1));
    const dayAhead = clock.now() + 86_400_000;
    writeFileSync(
      join(dir, 'quota-calls.json'),
      JSON.stringify({ statistic: { done: [dayAhead, dayAhead + 1], inFlight: 0 } }),
    );
    const events: JournalEvent[] = [];
    const journal = new QuotaJournal(dir, { clock, onEvent: (e) => events.push(e) });
    expect(events).toEqual([{ type: 'future', path: join(dir, 'quota-calls.json'), count: 2, aheadMs: 86_400_001 }]);
    const limiter = new Limiter('statistic', QUOTA, { clock, marginMs: 50, journal });
    expect(limiter.snapshot().recentCompletions).toBe(2);
    clock.advance(PERIOD + 50);
    expect(limiter.snapshot().recentCompletions).toBe(0);
  });
});
