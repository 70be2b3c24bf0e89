import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Limiter } from '../../src/limit/index.js';
import { QuotaJournal } from '../../src/state/quota-journal.js';

describe('quota journal', () => {
  it('a new process counts the calls of the previous one, in-flight ones as completed at restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-'));
    const clock = new ManualClock(1000);
    const before = new QuotaJournal(dir, { clock });
    before.sent('statistic');
    clock.set(1100);
    before.completed('statistic');
    before.sent('statistic'); // killed while this call was in flight
    await before.flush();
    clock.set(5000);
    const after = new QuotaJournal(dir, { clock });
    expect(after.history('statistic', clock)).toEqual({ completedAt: [1100, 5000], unsettled: 0 });
    expect(after.history('metrics', clock)).toEqual({ completedAt: [], unsettled: 0 });
  });

  it(
    'a call is on disk before it is sent: ' + 'a process killed at once (no flush, no tick) still leaves it counted',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'qj-'));
      const clock = new ManualClock(1000);
      new QuotaJournal(dir, { clock }).sent('metrics'); // kill -9 right after the request went out
      clock.set(1500);
      expect(new QuotaJournal(dir, { clock }).history('metrics', clock)).toEqual({ completedAt: [1500], unsettled: 0 });
    },
  );

  it('a limiter started on a journal waits for the remembered calls to age out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-'));
    const clock = new ManualClock(10_000);
    const journal = new QuotaJournal(dir, { clock });
    for (let i = 0; i < 5; i++) {
      journal.sent('statistic');
      clock.advance(1);
      journal.completed('statistic');
    }
    await journal.flush();
    clock.set(20_000);
    const limiter = new Limiter(
      'statistic',
      { calls: 5, periodMs: 60_000 },
      { clock, marginMs: 0, journal: new QuotaJournal(dir, { clock }) },
    );
    expect(limiter.snapshot().recentCompletions).toBe(5);
    clock.set(70_001); // the call completed at 10 001 has aged out
    expect(limiter.snapshot().recentCompletions).toBe(4);
  });

  it('starts empty without a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-'));
    expect(new QuotaJournal(join(dir, 'nope')).history('dvr', new ManualClock(0))).toEqual({
      completedAt: [],
      unsettled: 0,
    });
  });

  it('coalesces writes: a burst of changes costs one write in flight plus one with the latest state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-'));
    const clock = new ManualClock(1000);
    const written: string[] = [];
    let release: () => void = () => {};
    const journal = new QuotaJournal(dir, {
      clock,
      write: async (_path, data) => {
        written.push(data);
        await new Promise<void>((resolve) => (release = resolve));
      },
    });
    journal.sent('dvr');
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 50; i++) {
      journal.completed('dvr');
      journal.sent('dvr');
    }
    release();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await journal.flush();
    expect(written).toHaveLength(2);
    expect(JSON.parse(written[1]!)).toMatchObject({ dvr: { inFlight: 1 } });
    expect(JSON.parse(written[1]!).dvr.done).toHaveLength(50);
  });
});
