import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextRunsUtc, scheduleUtc } from '../../src/cron.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 9, 25, 0, 58, 30); // 02:58:30 CEST, half an hour before the end of summer time

describe('cron schedules (src/cron.ts), on vitest fake timers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at each matching minute; a run that throws is handed to onError and the schedule goes on', async () => {
    vi.useFakeTimers({ now: T0, toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const runs: number[] = [];
    const errors: unknown[] = [];
    const task = scheduleUtc(
      '* * * * *',
      () => {
        runs.push(Date.now());
        if (runs.length === 2) throw new Error('boom');
      },
      { noOverlap: false, onError: (err) => errors.push(err) },
    );
    await vi.advanceTimersByTimeAsync(4 * MINUTE);
    await task.stop();
    await vi.advanceTimersByTimeAsync(2 * MINUTE);
    expect(runs.map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(['00:59', '01:00', '01:01', '01:02']);
    expect(errors).toEqual([new Error('boom')]);
  });

  it('with noOverlap, a run still going skips the next times; without it, runs overlap', async () => {
    vi.useFakeTimers({ now: T0, toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const started = { skipping: 0, overlapping: 0 };
    const skipping = scheduleUtc('* * * * *', () => (started.skipping++, held), { noOverlap: true, onError: () => {} });
    const overlapping = scheduleUtc('* * * * *', () => (started.overlapping++, held), {
      noOverlap: false,
      onError: () => {},
    });
    await vi.advanceTimersByTimeAsync(3 * MINUTE);
    expect(started).toEqual({ skipping: 1, overlapping: 3 });
    release();
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(started).toEqual({ skipping: 2, overlapping: 4 });
    await skipping.stop();
    await overlapping.stop();
  });

  it('reads expressions in UTC: the next runs of 12 1 * * * are at 01:12 UTC', () => {
    vi.useFakeTimers({ now: T0, toFake: ['Date'] });
    expect(nextRunsUtc('12 1 * * *', 2).map((d) => d.toISOString())).toEqual([
      '2026-10-25T01:12:00.000Z',
      '2026-10-26T01:12:00.000Z',
    ]);
  });
});
