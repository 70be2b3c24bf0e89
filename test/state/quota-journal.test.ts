import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Limiter } from '../../src/limit/index.js';
import { QuotaJournal } from '../../src/state/quota-journal.js';

describe('quota journal', () => {
  it('a new process counts the calls of the previous one, in-flight ones as completed at restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-'));
    const before = new QuotaJournal(dir, 1000);
    before.sent('statistic');
    before.completed('statistic', 1100);
    before.sent('statistic'); // killed while this call was in flight
    const after = new QuotaJournal(dir, 5000);
    expect(after.history('statistic')).toEqual([1100, 5000]);
    expect(after.history('metrics')).toEqual([]);
  });

  it('a limiter started on a journal waits for the remembered calls to age out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-'));
    const journal = new QuotaJournal(dir, 0);
    for (let i = 0; i < 5; i++) {
      journal.sent('statistic');
      journal.completed('statistic', 10_000 + i);
    }
    const clock = new ManualClock(20_000);
    const limiter = new Limiter('statistic', { calls: 5, periodMs: 60_000 }, { clock, marginMs: 0, journal: new QuotaJournal(dir, 20_000) });
    expect(limiter.snapshot().recentCompletions).toBe(5);
    clock.set(70_000); // the call completed at 10 000 has aged out
    expect(limiter.snapshot().recentCompletions).toBe(4);
  });

  it('tolerates a missing or torn file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-'));
    expect(new QuotaJournal(join(dir, 'nope'), 0).history('dvr')).toEqual([]);
  });
});
