import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { LimiterSet } from '../../src/limit/index.js';
import { perApi } from '../../src/spec/apis.js';
import { QuotaJournal, type JournalEvent } from '../../src/state/quota-journal.js';

const QUOTAS = perApi((_, { quota }) => quota);

/** A journal file with `content`, loaded as a restarted process would: the events, the copies kept, the limiters. */
function restartOn(content: string) {
  const dir = mkdtempSync(join(tmpdir(), 'qj-corrupt-'));
  writeFileSync(join(dir, 'quota-calls.json'), content);
  const clock = new ManualClock(Date.UTC(2024, 0, 1));
  const events: JournalEvent[] = [];
  const journal = new QuotaJournal(dir, { clock, onEvent: (e) => events.push(e) });
  const limiters = new LimiterSet(QUOTAS, { clock, marginMs: 0, journal });
  const copies = readdirSync(dir).filter((name) => name.startsWith('quota-calls.json.corrupt-'));
  return { dir, clock, events, limiters, copies };
}

describe('a damaged quota journal', () => {
  it.each([
    ['an absurd in-flight count', '{"statistic":{"done":[],"inFlight":300000000}}'],
    ['not JSON', 'quota-calls \u0000\u0001 garbage'],
    ['an array', '[1,2,3]'],
    ['a wrong type', '{"statistic":{"done":"yesterday","inFlight":0}}'],
    ['an unknown API', '{"cdn":{"done":[],"inFlight":0}}'],
    ['non-numeric times', '{"dvr":{"done":[null, "x"],"inFlight":0}}'],
  ])('%s: named in a warning, kept as a copy, and every quota window counted full', (_name, content) => {
    const { dir, clock, events, limiters, copies } = restartOn(content);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'damaged', path: join(dir, 'quota-calls.json') });
    expect(copies).toHaveLength(1);
    expect(readFileSync(join(dir, copies[0]!), 'utf8')).toBe(content);
    for (const [api, quota] of Object.entries(QUOTAS)) {
      expect(limiters.get(api as keyof typeof QUOTAS).snapshot().recentCompletions, api).toBe(quota.calls);
    }
    clock.advance(60_001);
    expect(limiters.get('statistic').snapshot().recentCompletions).toBe(0);
  });

  it('a sound journal raises no warning and makes no copy', () => {
    const { events, copies, limiters } = restartOn('{"statistic":{"done":[],"inFlight":2}}');
    expect(events).toEqual([]);
    expect(copies).toEqual([]);
    expect(limiters.get('statistic').snapshot().recentCompletions).toBe(2);
  });
});
