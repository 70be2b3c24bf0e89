import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handOverBackfill } from '../../src/backfill/client.js';
import { describeCuts } from '../../src/backfill/cuts.js';
import { requestDir } from '../../src/backfill/requests.js';
import { fakeJob, MIN, T0 } from '../helpers/fake-job.js';

describe('handing a backfill over', () => {
  const dir = mkdtempSync(join(tmpdir(), 'handover-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails naming the reason when the lock holder takes no requests (another backfill); leaves none', async () => {
    await expect(
      handOverBackfill(
        dir,
        { from: T0, to: T0 + 10 * MIN, jobs: [], dryRun: true },
        { pickupTimeoutMs: 300, pollMs: 50 },
      ),
    ).rejects.toMatchObject({ code: 'CDN_ERR_HANDOVER_NOT_TAKEN', command: 'backfill' });
    expect(readdirSync(requestDir(dir))).toEqual([]);
  });
});

describe('--from/--to notes', () => {
  const job = { ...fakeJob(() => 1), rule: { stepMs: 10 * MIN, delayMs: 2 * MIN, maxSpanMs: 10 * MIN } };
  const now = T0 + 24 * 60 * MIN;

  it('says that a --to inside a window drops that window, and a --from inside one takes it whole', () => {
    const notes = describeCuts([job], { from: T0 + 5 * MIN, to: T0 + 65 * MIN }, now);
    expect(notes).toEqual([
      '--from 2026-01-01T00:05Z falls inside a 10-minute window of metrics: ' +
        'its whole window from 2026-01-01T00:00Z is collected',
      '--to 2026-01-01T01:05Z cuts the 10-minute window 2026-01-01T01:00Z–2026-01-01T01:10Z of metrics: it is not ' +
        'collected (windows are read whole); collection ends at 2026-01-01T01:00Z',
    ]);
  });

  it('says where a --to past the newest final window really ends, and nothing for aligned bounds', () => {
    expect(describeCuts([job], { from: T0, to: now }, now)).toEqual([
      '--to 2026-01-02T00:00Z is past the newest final 10-minute window of metrics (windows are read 2m 00s after ' +
        'they end): collection ends at 2026-01-01T23:50Z',
    ]);
    expect(describeCuts([job], { from: T0, to: T0 + 60 * MIN }, now)).toEqual([]);
  });
});
