import { describe, expect, it } from 'vitest';
import { viewsByGroup, type StreamRef, type ViewGrouping } from '../../src/sim/model/views.js';
import { createWorld } from '../../src/sim/model/world.js';
import { DAY, HOUR } from '../../src/time.js';

const world = createWorld({ seed: 11 });
const DAY_START = Date.UTC(2026, 2, 9);
const HOURS = Array.from({ length: 24 }, (_, i) => DAY_START + i * HOUR);

function usersOf(streams: readonly StreamRef[], grouping: ViewGrouping, from: number, to: number): Map<string, number> {
  const groups = viewsByGroup(world, { streams, filters: {}, grouping, from, to });
  return new Map([...groups].map(([k, v]) => [k, v.users]));
}

/**
 * The simulator counts unique users over the interval asked, as the real API does: a day's uniques are
 * fewer than the sum of its hours' (a user watching in two hours counts once a day) and at least the largest hour's.
 */
describe('simulated unique users over the interval asked', () => {
  const accounts = world.accounts.map((a) => a.streams.map((stream) => ({ account: a.name, stream })));

  it.each([
    ['total', { kind: 'total' }],
    ['browsers', { kind: 'split', dimension: 'browser' }],
    ['stream types', { kind: 'stream', key: (ref: StreamRef) => ref.stream.type }],
  ] as Array<[string, ViewGrouping]>)(
    '%s: day < sum of hours, day ≥ max of hours, per account and group',
    (_name, grouping) => {
      for (const streams of accounts) {
        const day = usersOf(streams, grouping, DAY_START, DAY_START + DAY);
        const hours = HOURS.map((h) => usersOf(streams, grouping, h, h + HOUR));
        expect(day.size).toBeGreaterThan(0);
        for (const [group, users] of day) {
          const perHour = hours.map((h) => h.get(group) ?? 0);
          expect(users, group).toBeGreaterThan(0);
          expect(
            perHour.reduce((a, b) => a + b, 0),
            group,
          ).toBeGreaterThan(users);
          expect(Math.max(...perHour), group).toBeLessThanOrEqual(users);
        }
      }
    },
  );

  it('is deterministic: the same interval gives the same uniques', () => {
    const streams = accounts[0]!;
    const a = usersOf(streams, { kind: 'total' }, DAY_START, DAY_START + DAY);
    expect(usersOf(streams, { kind: 'total' }, DAY_START, DAY_START + DAY)).toEqual(a);
    expect(usersOf(streams, { kind: 'total' }, DAY_START, DAY_START + DAY - HOUR).get('total')).toBeLessThan(
      a.get('total')!,
    );
  });
});
