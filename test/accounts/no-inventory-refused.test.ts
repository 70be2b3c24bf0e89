import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatherStatus } from '../../src/cli/status/status-report.js';
import { ManualClock } from '../../src/clock.js';
import { createRuntime } from '../../src/app/runtime.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { SHARED_TOTALS_KEY } from '../../src/sources/statistic/shared-totals.js';
import { DaemonReporter } from '../../src/app/daemon-report.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { HOUR } from '../../src/time.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { configFor, type LogLine, onlyJobs } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);

/**
 * A white label without the inventory (404): `accounts: [acme, globex, nosuch]` cannot be checked at start. The shared
 * totals job (`/times/accounts`) leaves an account the token cannot read out without a word, so it must not confirm
 * `statistic/nosuch/total`: a member with no row is proven by its own `/times` (refused: 401 `account`), and the
 * refusal is reported in the log, /healthz, /metrics and `status`.
 */
describe('no inventory: the shared totals job never confirms an account an API refuses', () => {
  const s = useSimulator({ clock, quotas: NO_QUOTAS, world: { accounts: 2 }, settings: { inventory: false } });

  it('confirms acme and globex, never nosuch, and reports nosuch as refused everywhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'no-inventory-'));
    const config = configFor(
      s.sim,
      { type: 'file', path: join(dir, 'points.lp') },
      { accounts: ['acme', 'globex', 'nosuch'], jobs: onlyJobs({ statistic: { groupings: ['total'] } }) },
    );
    const { log, text } = capturedLogger();
    const rt = await createRuntime(config, clock, log, { checkAccounts: true });
    try {
      const before = s.sim.stats.apis.statistic.requests;
      const [shared] = rt.collector.jobs;
      expect(shared?.key).toBe(SHARED_TOTALS_KEY);
      const spans = rt.collector.pending(shared!);
      const most = spans.reduce((n, span) => n + shared!.callsFor(span).most, 0);
      expect((await rt.collector.tick()).filter((r) => r.error)).toEqual([]);
      // Its calls as planned (a page checks for the member without a row), and one proof of nosuch.
      expect(s.sim.stats.apis.statistic.requests - before).toBe(most + 1);
      expect(rt.store.confirmed('statistic/acme/total').length).toBe(1);
      expect(rt.store.confirmed('statistic/globex/total').length).toBe(1);
      expect(rt.store.confirmed('statistic/nosuch/total')).toEqual([]);

      const lines = text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogLine);
      const refused = lines.filter((l) => l.level === 50 && l.account === 'nosuch');
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ api: 'statistic', reason: 'HTTP 401 account' });

      expect(evaluateHealth(rt.telemetry, { maxLagMs: 24 * HOUR }).reasons?.['account:nosuch']).toMatch(/statistic/);
      expect(await rt.telemetry.prometheus()).toMatch(/cdn_collector_unhealthy\{condition="account:nosuch"\} 1/);

      await new DaemonReporter(rt).write();
      const status = await gatherStatus(config);
      expect(Object.keys(status.refusedAccounts)).toEqual(['nosuch']);
      expect(status.refusedAccounts.nosuch).toMatchObject({ api: 'statistic', reason: 'HTTP 401 account' });
      expect(status.jobs.find((j) => j.key === 'statistic/nosuch/total')?.watermark).toBeNull();

      // Later passes neither prove it again nor look for its rows: it is left out until the restart.
      clock.advance(HOUR);
      const next = s.sim.stats.apis.statistic.requests;
      const nextSpans = rt.collector.pending(shared!).length;
      await rt.collector.tick();
      expect(s.sim.stats.apis.statistic.requests - next).toBe(nextSpans);
      expect(rt.store.confirmed('statistic/nosuch/total')).toEqual([]);
    } finally {
      await rt.close();
    }
  });

  it('a per-account API refusing an account (stream views 401 `account`) is reported once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'no-inventory-'));
    const config = configFor(
      s.sim,
      { type: 'file', path: join(dir, 'points.lp') },
      { accounts: ['acme', 'nosuch'], jobs: onlyJobs({ streamstat: { groupings: ['total'] } }) },
    );
    const { log, text } = capturedLogger();
    const rt = await createRuntime(config, clock, log, { checkAccounts: true });
    try {
      await rt.collector.tick();
      await rt.collector.tick();
      expect(Object.keys(rt.accounts.refusedAccounts())).toEqual(['nosuch']);
      expect(rt.accounts.refusedAccounts().nosuch).toMatchObject({ api: 'streamstat', reason: 'HTTP 401 account' });
      const refused = text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogLine)
        .filter((l) => l.level === 50 && l.account === 'nosuch');
      expect(refused).toHaveLength(1);
    } finally {
      await rt.close();
    }
  });
});
