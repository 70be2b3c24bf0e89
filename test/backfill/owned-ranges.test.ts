/**
 * The ranges backfills own, as `status` lists them without a daemon: a cancelled backfill stays listed with its
 * progress and resume command, a rerun of the same command continues its entry, a completed one disappears, and a
 * backfill whose process died is shown as interrupted.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OwnedRange } from '../../src/backfill/owned-range.js';
import { gatherUnfinishedBackfills } from '../../src/cli/status/status-backfills.js';
import { ManualClock } from '../../src/clock.js';
import type { BackfillPlan } from '../../src/plan/planner.js';
import { changeBackfillRanges } from '../../src/state/backfill-ranges.js';
import { HOUR } from '../../src/time.js';

const T = Date.UTC(2026, 10, 1);
const range = { from: T, to: T + 24 * HOUR, jobs: ['metrics'], command: 'cdn-collector backfill --from … --to …' };
const planOf = (spans: number) => ({ spans }) as BackfillPlan;
const fail = (err: unknown) => {
  throw err;
};

describe('ranges owned by backfills', () => {
  it('are listed while unfinished, continued by a rerun, and gone once complete', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'owned-'));
    const clock = new ManualClock(T + 30 * 24 * HOUR);
    const first = await OwnedRange.start(dir, range, planOf(10), clock, fail);
    for (let i = 0; i < 3; i++) first.spanDone();
    await first.end('cancelled', () => 7);
    const listed = (await gatherUnfinishedBackfills(dir)).backfills;
    expect(listed).toEqual([
      {
        from: new Date(range.from).toISOString(),
        to: new Date(range.to).toISOString(),
        jobs: ['metrics'],
        spansDone: 3,
        spans: 10,
        state: 'cancelled',
        resume: range.command,
      },
    ]);

    // The resume: 7 spans left of the 10 first planned.
    const again = await OwnedRange.start(dir, range, planOf(7), clock, fail);
    expect((await gatherUnfinishedBackfills(dir)).backfills[0]).toMatchObject({ spansDone: 3, spans: 10 });
    await again.end('done', () => 0);
    expect((await gatherUnfinishedBackfills(dir)).backfills).toEqual([]);
  });

  it('one left running by a process that is gone reads as interrupted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'owned-'));
    const clock = new ManualClock(T + 30 * 24 * HOUR);
    await OwnedRange.start(dir, range, planOf(5), clock, fail);
    await changeBackfillRanges(dir, (ranges) => ranges.map((r) => ({ ...r, pid: 2 ** 22 + 1 })));
    expect((await gatherUnfinishedBackfills(dir)).backfills[0]!.state).toBe('interrupted');
  });
});
