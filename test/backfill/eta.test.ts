/**
 * The backfill ETA on a virtual clock: a real Limiter (exact sliding window) runs a planned backfill whose calls take
 * a fixed time; after every completion the ETA predicts the end, and from the first tenth of the run on it is within
 * 10 % of the real duration. Deterministic: no real time passes.
 */
import { describe, expect, it } from 'vitest';
import { BackfillEta, formatDuration } from '../../src/backfill/eta.js';
import { Limiter } from '../../src/limit/limiter.js';
import { VirtualTime } from '../limit/virtual-time.js';

const MINUTE = 60_000;

async function simulate(opts: {
  calls: number;
  quota: { calls: number; periodMs: number };
  callMs: number;
  workers: number;
}) {
  const vt = new VirtualTime();
  const limiter = new Limiter('metrics', opts.quota, { clock: vt, sleep: vt.sleep, marginMs: 0 });
  const startedAt = vt.now();
  const eta = new BackfillEta({ metrics: opts.calls }, { metrics: opts.quota }, startedAt);
  const predictions: Array<{ at: number; end: number }> = [
    { at: startedAt, end: startedAt + eta.remainingMs(startedAt) },
  ];
  let next = 0;
  let first = true;
  const worker = async () => {
    while (next < opts.calls) {
      next++;
      const sentAt = await limiter.run(async () => {
        const at = vt.now();
        await vt.sleep(opts.callMs);
        return at;
      });
      const now = vt.now();
      eta.completed('metrics', 1, now, first ? now - sentAt : undefined);
      first = false;
      predictions.push({ at: now, end: now + eta.remainingMs(now) });
    }
  };
  await vt.run(Promise.all(Array.from({ length: opts.workers }, worker)));
  return { startedAt, end: vt.now(), predictions };
}

describe('backfill ETA from the plan and the quota', () => {
  for (const c of [
    {
      name: '60 calls at 5/min (the issue: "ETA 15s" when the plan said ≥ 660 s)',
      calls: 60,
      quota: { calls: 5, periodMs: MINUTE },
      callMs: 400,
      workers: 6,
    },
    {
      name: '26 spans at 5/min, one worker',
      calls: 26,
      quota: { calls: 5, periodMs: MINUTE },
      callMs: 2_000,
      workers: 1,
    },
    {
      name: '500 calls at 100/min, 16 workers',
      calls: 500,
      quota: { calls: 100, periodMs: MINUTE },
      callMs: 250,
      workers: 16,
    },
  ]) {
    it(`is within 10 % of the real duration after the first tenth: ${c.name}`, async () => {
      const { startedAt, end, predictions } = await simulate(c);
      const duration = end - startedAt;
      expect(duration).toBeGreaterThan(c.quota.periodMs); // the quota, not the call time, sets the pace
      const late = predictions.filter((p) => p.at - startedAt >= duration / 10);
      expect(late.length).toBeGreaterThan(0);
      for (const p of late)
        expect(Math.abs(p.end - end), `predicted at +${p.at - startedAt} ms`).toBeLessThanOrEqual(duration / 10);
      // At the start, before any call was measured, the quota alone already gives the right order of magnitude.
      expect(predictions[0]!.end - startedAt).toBeGreaterThanOrEqual(duration * 0.8);
    });
  }

  it('formats durations without "2m60s"', () => {
    expect(formatDuration(179_600)).toBe('3m 00s');
    expect(formatDuration(119_999)).toBe('2m 00s');
    expect(formatDuration(45_200)).toBe('45s');
    expect(formatDuration(3_725_000)).toBe('1h 02m');
    expect(formatDuration(-5)).toBe('0s');
  });
});
