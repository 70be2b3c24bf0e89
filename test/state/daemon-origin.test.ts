/**
 * The daemon's origin (where its gap filling starts) is recorded per job key and moved only by the daemon's own
 * passes: a backfill's confirmed spans never move it; a state directory from before it was recorded starts from its
 * oldest confirmed span (nothing already owed is dropped); `state.initialLookback` raised moves it back on purpose.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SINGLE_CALL } from '../../src/paging/walk.js';
import { daemonOrigin, pendingSpans } from '../../src/plan/pending.js';
import type { CollectJob } from '../../src/sources/common/types.js';
import { fileNameOf } from '../../src/state/checkpoint-file.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { SetAsideStore } from '../../src/state/set-aside.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';

const KEY = 'metrics/acme';
const NOW = Date.UTC(2024, 0, 8);
const job: CollectJob = {
  key: KEY,
  api: 'metrics',
  rule: { stepMs: 10 * MINUTE, delayMs: 0, maxSpanMs: HOUR },
  checkpointed: true,
  callsFor: () => SINGLE_CALL,
  collect: async () => [],
};
let dir: string;
let store: CheckpointStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'origin-'));
});
afterEach(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const open = async () => (store = await CheckpointStore.open(dir, { clock: new ManualClock(NOW) }));
const state = (lookback = HOUR) => ({
  store,
  aside: SetAsideStore.inMemory(new ManualClock(NOW)),
  horizonMs: 7 * DAY,
  initialLookbackMs: lookback,
});

describe('the daemon’s origin', () => {
  it('is not moved by spans a backfill confirms, and survives a restart', async () => {
    await open();
    await store.setOrigin(KEY, NOW - HOUR);
    await store.confirm(KEY, { from: NOW - 3 * DAY, to: NOW - 3 * DAY + HOUR }); // a backfill's hour
    await store.close();
    await open();
    expect(store.origin(KEY)).toBe(NOW - HOUR);
    const pending = pendingSpans(job, state(), NOW);
    expect(pending[0]!.from).toBe(NOW - HOUR);
    expect(pending.at(-1)!.to).toBe(NOW);
  });

  it('of a state directory from before it was recorded is the oldest confirmed span', async () => {
    const file = { version: 1, key: KEY, watermark: null, confirmedAt: null, spans: [[NOW - 2 * DAY, NOW - DAY]] };
    await writeFile(join(dir, fileNameOf(KEY)), JSON.stringify(file));
    await open();
    expect(store.origin(KEY)).toBe(NOW - 2 * DAY);
    expect(pendingSpans(job, state(), NOW)[0]!.from).toBe(NOW - DAY);
  });

  it('of a new key is initialLookback back, and moves back when initialLookback is raised', async () => {
    await open();
    expect(daemonOrigin(job, state(), KEY, NOW)).toBe(NOW - HOUR);
    await store.setOrigin(KEY, NOW - HOUR, HOUR);
    expect(daemonOrigin(job, state(HOUR), KEY, NOW + DAY)).toBe(NOW - HOUR);
    expect(daemonOrigin(job, state(3 * DAY), KEY, NOW + DAY)).toBe(NOW - 2 * DAY);
    // Set with a long lookback, the origin stays where the daemon put it: the setting reaches back only when raised.
    await store.setOrigin(KEY, NOW - HOUR, 3 * DAY);
    expect(daemonOrigin(job, state(3 * DAY), KEY, NOW + DAY)).toBe(NOW - HOUR);
  });
});
