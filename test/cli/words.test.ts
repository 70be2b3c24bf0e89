/** Counts in what the CLI and the log say: `1 window`, `1 point`, no `at least 0 s (0s)`, whole milliseconds. */
import { describe, expect, it, vi } from 'vitest';
import { printPlan } from '../../src/cli/backfill/backfill-plan.js';
import { stoppedVerdictLine, verdictLine } from '../../src/cli/common/verdict.js';
import { parseConfig } from '../../src/config/loader.js';
import type { LimiterSet } from '../../src/limit/index.js';
import { QuotaWaits } from '../../src/app/quota-waits.js';

const one = {
  collected: 1,
  setAside: 0,
  failed: 0,
  failedJobs: 0,
  points: 1,
  refused: 1,
  calls: 1,
  quotaRejections: 0,
};

describe('counts of one are singular', () => {
  it('run --once verdicts', () => {
    expect(verdictLine(one)).toBe(
      'once: POINTS REFUSED: 1 window collected, 0 set aside, 0 failed; 1 point, 1 point refused by the database ' +
        '(dead letters); 1 call, 0 answered 429',
    );
    expect(stoppedVerdictLine(one, 'SIGINT', 2)).toMatch(/: 1 window collected and checkpointed, .*; 1 point; 1 call,/);
  });

  it('a backfill plan with nothing to wait for says so, not "at least 0 s (0s)"; 1 span in 1 job', () => {
    const config = parseConfig(
      {
        api: { baseUrl: 'http://127.0.0.1:1', token: 'words-token' },
        accounts: ['acme'],
        sink: { type: 'file', path: '-' },
      },
      {},
    );
    const plan = { jobs: [{ key: 'metrics/acme', spans: 1 }], calls: {}, pagingMayAdd: [], spans: 1 };
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((text) => out.push(String(text)) > 0);
    try {
      printPlan(plan as never, { from: 0, to: 60_000 }, config, [], false);
    } finally {
      write.mockRestore();
    }
    const text = out.join('');
    expect(text).toMatch(/: 1 span in 1 job\n/);
    expect(text).not.toMatch(/at least 0 s/);
    expect(text).toMatch(/no wait for quota/);
  });
});

describe('progress lines carry whole milliseconds', () => {
  it('leftMs is an integer however the estimate comes out', () => {
    const limiter = {
      snapshot: () => ({ queued: 3, inFlight: 0, nextSlotInMs: 1234.5678, recentCompletions: 0 }),
      quota: { calls: 7, periodMs: 60_000 },
    };
    const limiters = { get: () => limiter } as unknown as LimiterSet;
    const waiting = new QuotaWaits(limiters, {}).waiting();
    expect(waiting.length).toBeGreaterThan(0);
    for (const w of waiting) expect(Number.isInteger(w.leftMs)).toBe(true);
  });
});
