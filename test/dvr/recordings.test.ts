import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dvrToPoints } from '../../src/sources/dvr/points.js';
import {
  FORGET_RECORDING_AFTER_SEC,
  identifyRanges,
  MAX_RECORDINGS_PER_SERIES,
} from '../../src/sources/dvr/recordings.js';
import type { DvrGetResponse } from '../../src/sources/dvr/schemas.js';
import { DVR_RECORDINGS_FILE, DvrRecordingStore, type KnownRecording } from '../../src/state/dvr-recordings.js';

const S = 1_772_445_900; // a whole minute, unix seconds

describe('identifyRanges', () => {
  it('keeps the first-seen start while the window cuts the range and the stream grows it', () => {
    let known: KnownRecording[] = [];
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const step = identifyRanges(known, [{ from: S + i * 60, to: S + 3600 + i * 60 }], S + 3600 + i * 60);
      known = step.known;
      ids.push(step.ranges[0]!.id);
    }
    expect(ids).toEqual([S, S, S, S, S]);
    expect(known).toEqual([{ id: S, from: S + 240, to: S + 3840, seenAt: S + 3840 }]);
  });

  it('a range after a break is a new recording, identified by its start', () => {
    const first = identifyRanges([], [{ from: S, to: S + 600 }], S + 600);
    const next = identifyRanges(
      first.known,
      [
        { from: S + 60, to: S + 600 },
        { from: S + 700, to: S + 720 },
      ],
      S + 720,
    );
    expect(next.ranges.map((r) => r.id)).toEqual([S, S + 700]);
  });

  it('a recording split by a deletion: the earlier part keeps the identity, the later one is new', () => {
    const first = identifyRanges([], [{ from: S, to: S + 600 }], S + 600);
    const split = identifyRanges(
      first.known,
      [
        { from: S, to: S + 100 },
        { from: S + 200, to: S + 660 },
      ],
      S + 660,
    );
    expect(split.ranges.map((r) => r.id)).toEqual([S, S + 200]);
  });

  it('a recording missing from some snapshots keeps its identity; one absent beyond the limit is forgotten', () => {
    const first = identifyRanges([], [{ from: S, to: S + 600 }], S + 600);
    const missing = identifyRanges(first.known, [], S + 660);
    expect(missing.known).toHaveLength(1);
    expect(identifyRanges(missing.known, [{ from: S + 60, to: S + 720 }], S + 720).ranges[0]!.id).toBe(S);
    const long = identifyRanges(first.known, [], S + 600 + FORGET_RECORDING_AFTER_SEC + 1);
    expect(long.known).toEqual([]);
  });

  it('never gives two recordings of a series the same time, and remembers a bounded number', () => {
    const known: KnownRecording[] = [{ id: S + 500, from: S + 100, to: S + 200, seenAt: S + 200 }];
    expect(identifyRanges(known, [{ from: S + 500, to: S + 560 }], S + 560).ranges[0]!.id).toBe(S + 501);
    const many = Array.from({ length: MAX_RECORDINGS_PER_SERIES + 50 }, (_, i) => ({
      from: S + i * 10,
      to: S + i * 10 + 5,
    }));
    expect(identifyRanges([], many, S + 100_000).known).toHaveLength(MAX_RECORDINGS_PER_SERIES + 50);
    expect(identifyRanges(identifyRanges([], many, S).known, [], S + 60).known).toHaveLength(MAX_RECORDINGS_PER_SERIES);
  });
});

describe('DvrRecordingStore', () => {
  let dir: string;
  const problems: string[] = [];
  const body = (from: number, to: number): DvrGetResponse => ({
    status: 'Completed',
    stream_name: 'live/main',
    data: [
      {
        stream_name: 'live/main',
        host: 'node-01',
        is_alive: true,
        dvr: { enabled: true, window: 14400, duration: to - from, from, ranges: [{ from, duration: to - from }] },
      },
    ],
  });
  const rangeTime = (store: DvrRecordingStore, from: number, to: number) =>
    dvrToPoints('acme', body(from, to), to * 1000, { recordings: store }).find((p) => p.measurement === 'cdn_dvr_range')
      ?.time;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dvr-rec-'));
    problems.length = 0;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const open = async () => {
    const store = new DvrRecordingStore({ dir, onProblem: (p) => problems.push(p) });
    await store.ready();
    return store;
  };

  it('a restart keeps the identities (the file in the state dir)', async () => {
    const before = await open();
    expect(rangeTime(before, S, S + 600)).toBe(S * 1000);
    await before.save();
    const after = await open();
    expect(rangeTime(after, S + 60, S + 660)).toBe(S * 1000);
    expect(problems).toEqual([]);
  });

  it('a corrupt file is reported and identities restart from the observed starts, without a crash', async () => {
    await writeFile(join(dir, DVR_RECORDINGS_FILE), '{"version":1,"series":{"x":[[1,2]]}}');
    const store = await open();
    expect(problems).toEqual([expect.stringContaining('unreadable')]);
    expect(rangeTime(store, S + 60, S + 660)).toBe((S + 60) * 1000);
    await store.save();
    expect(JSON.parse(await readFile(join(dir, DVR_RECORDINGS_FILE), 'utf8'))).toMatchObject({ version: 1 });
  });

  it('a save that fails is reported once per failing streak, never thrown', async () => {
    // A state dir below a regular file: unwritable even for root.
    const file = join(dir, 'not-a-dir');
    await writeFile(file, '');
    const store = new DvrRecordingStore({ dir: join(file, 'state'), onProblem: (p) => problems.push(p) });
    await store.ready();
    rangeTime(store, S, S + 600);
    await expect(store.save()).resolves.toBeUndefined();
    await expect(store.save()).resolves.toBeUndefined();
    expect(problems.filter((p) => p.includes('not saved'))).toHaveLength(1);
    expect(rangeTime(store, S + 60, S + 660)).toBe(S * 1000); // identities still kept in memory
  });

  it('forgets a series not snapshotted for a day (its stream left the config)', async () => {
    const store = await open();
    rangeTime(store, S, S + 600);
    store.remember('other', [{ id: S, from: S, to: S + 60, seenAt: S + 2 * 86_400 }], S + 2 * 86_400);
    await store.save();
    expect(Object.keys(JSON.parse(await readFile(join(dir, DVR_RECORDINGS_FILE), 'utf8')).series)).toEqual(['other']);
  });

  it('with output.overwrites false no cdn_dvr_range is written (each snapshot would add a sample)', () => {
    const points = dvrToPoints('acme', body(S, S + 600), (S + 600) * 1000, { ranges: false });
    expect(points.map((p) => p.measurement)).toEqual(['cdn_dvr']);
  });
});
