import { describe, expect, it } from 'vitest';
import { dvrJobs } from '../../src/sources/dvr/jobs.js';
import { DvrRound, dvrTurnsNeeded, type DvrTurnsRule } from '../../src/sources/dvr/turns.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 2, 2, 10, 0, 0);

/** Reads per stream over `intervals` passes (skipping the intervals `skip` names), and the reads of each pass. */
function readRound(rule: DvrTurnsRule, intervals: number, skip: (k: number) => boolean = () => false) {
  const round = new DvrRound(rule);
  const counts = new Array<number>(rule.streams).fill(0);
  const perPass: number[] = [];
  for (let k = 0; k < intervals; k++) {
    if (skip(k)) continue;
    let reads = 0;
    for (let i = 0; i < rule.streams; i++) {
      if (round.isTurn(i, T0 + k * rule.intervalMs)) {
        counts[i]!++;
        reads++;
      }
    }
    perPass.push(reads);
  }
  return { counts, perPass };
}

const spread = (counts: number[]) => Math.max(...counts) - Math.min(...counts);

describe('DVR turns', () => {
  it('102 streams, 60/min, 1 m: 60 reads a minute, every stream read, counts at most one apart at every pass', () => {
    const rule = { streams: 102, intervalMs: MINUTE, quota: { calls: 60, period: MINUTE } };
    expect(dvrTurnsNeeded(rule)).toBe(true);
    for (const intervals of [1, 2, 7, 51]) {
      const { counts, perPass } = readRound(rule, intervals);
      expect(perPass.every((n) => n === 60)).toBe(true);
      expect(spread(counts)).toBeLessThanOrEqual(1);
    }
    // 51 minutes hold 3060 reads: exactly 30 per stream, one per 1.7 minutes.
    expect(new Set(readRound(rule, 51).counts)).toEqual(new Set([30]));
  });

  it('a fractional budget alternates (5/min at 10 s: 0 or 1 read a pass), never exceeding the quota per minute', () => {
    const rule = { streams: 7, intervalMs: 10_000, quota: { calls: 5, period: MINUTE } };
    const { counts, perPass } = readRound(rule, 60);
    expect(perPass.reduce((a, b) => a + b, 0)).toBe(50);
    for (let m = 0; m + 6 <= perPass.length; m += 6) expect(perPass.slice(m, m + 6).reduce((a, b) => a + b, 0)).toBe(5);
    expect(spread(counts)).toBeLessThanOrEqual(1);
  });

  it('an interval whose pass was skipped skips no stream: the next pass continues the round', () => {
    const rule = { streams: 10, intervalMs: MINUTE, quota: { calls: 3, period: MINUTE } };
    const { counts } = readRound(rule, 40, (k) => k % 4 === 1);
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(spread(counts)).toBeLessThanOrEqual(1);
  });

  it('a schedule every g intervals gives each pass the budget of g intervals', () => {
    const rule = { streams: 150, intervalMs: MINUTE, quota: { calls: 60, period: MINUTE }, passIntervals: 2 };
    const { counts, perPass } = readRound(rule, 10, (k) => k % 2 === 1);
    expect(perPass).toEqual([120, 120, 120, 120, 120]); // the quota allows 120 per 2 minutes: each pass reads that
    expect(spread(counts)).toBeLessThanOrEqual(1);
    // 102 streams every 5 minutes fit 60/min: no turns, every job reads every pass.
    const streams = Array.from({ length: 102 }, (_, i) => ({ account: 'acme', stream: `s${i}` }));
    const every5 = dvrJobs(
      { enabled: true, interval: MINUTE, streams, schedule: '*/5 * * * *' },
      { quota: { calls: 60, period: MINUTE } },
    );
    expect(every5.every((j) => j.currentSpans === undefined)).toBe(true);
    const every1 = dvrJobs(
      { enabled: true, interval: MINUTE, streams, schedule: '*/1 * * * *' },
      { quota: { calls: 60, period: MINUTE } },
    );
    expect(every1.every((j) => j.currentSpans !== undefined)).toBe(true);
  });

  it('streams that fit are all read at every pass, and the jobs then read every interval as before', () => {
    const rule = { streams: 60, intervalMs: MINUTE, quota: { calls: 60, period: MINUTE } };
    expect(dvrTurnsNeeded(rule)).toBe(false);
    const streams = Array.from({ length: 60 }, (_, i) => ({ account: 'acme', stream: `s${i}` }));
    const jobs = dvrJobs(
      { enabled: true, interval: MINUTE, streams, schedule: '*/1 * * * *' },
      { quota: { calls: 60, period: MINUTE } },
    );
    expect(jobs.every((j) => j.currentSpans === undefined)).toBe(true);
  });

  it('jobs of streams that do not fit read the current interval in their turn and nothing otherwise', () => {
    const streams = Array.from({ length: 4 }, (_, i) => ({ account: 'acme', stream: `s${i}` }));
    const jobs = dvrJobs(
      { enabled: true, interval: MINUTE, streams, schedule: '*/1 * * * *' },
      { quota: { calls: 2, period: MINUTE } },
    );
    const now = T0 + 30_000;
    const spans = jobs.map((j) => j.currentSpans!(now));
    expect(spans.filter((s) => s.length === 1)).toHaveLength(2);
    expect(spans.flat()).toEqual([
      { from: T0, to: T0 + MINUTE },
      { from: T0, to: T0 + MINUTE },
    ]);
  });
});
