import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configQuotasOf } from '../../src/sim/quota.js';
import { runCli, waitForOutput } from '../helpers/cli.js';
import { FAST_QUOTAS, writeSimConfig } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

/** `statistic: waiting for quota, 4 of 11 calls done, ~50s left` */
const WAITING = /^statistic: waiting for quota, (\d+) of (\d+) calls done, ~\d+s left$/m;

/**
 * A command whose calls wait for quota says so on stderr (not a terminal: a line every `log.progressEvery`) instead
 * of sitting silent for minutes: the statistic quota here lets one call through every 3 s.
 */
describe('progress while calls wait for quota', () => {
  const ctx = useSimulator({ quotas: FAST_QUOTAS });

  function slowStatistic(): string {
    const { sim } = ctx;
    return writeSimConfig(mkdtempSync(join(tmpdir(), 'quota-progress-')), sim, {
      quotas: { ...configQuotasOf(sim.quota), statistic: { calls: 1, period: '3s' } },
      jobs: { dvr: { enabled: false }, metrics: { enabled: false }, streamstat: { enabled: false } },
      log: { level: 'warn', progressEvery: '100ms' },
    });
  }

  for (const args of [
    ['run', '--once'],
    ['run', '--once', '--dry-run'],
  ]) {
    it(`${args.join(' ')}: "statistic: waiting for quota, n of m calls done, ~t left" lines on stderr`, async () => {
      const run = runCli([...args, '--config', slowStatistic()]);
      let stderr = '';
      run.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      try {
        await waitForOutput(run, 'stderr', WAITING);
        const [, done, planned] = WAITING.exec(stderr)!;
        expect(Number(planned)).toBeGreaterThan(Number(done));
      } finally {
        run.child.kill('SIGTERM');
        await run.exited;
      }
    }, 60_000);
  }
});
