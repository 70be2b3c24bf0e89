import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/servers.js';
import { ensureBuilt } from '../ops/entry.js';
import { waitForOutput } from '../ops/feedback-config.js';

/** Wait bound of a process (not an assertion): the daemon is stopped by the test well before. */
const PROCESS_LIMIT_MS = 60_000;
const streams = (n: number) => Array.from({ length: n }, (_, i) => ({ account: 'acme', stream: `live/s${i}` }));

/** DVR only, `n` streams, against `baseUrl`, quotas as configured by default (DVR 60/min). */
function dvrConfig(baseUrl: string, token: string, n: number, extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'dvr-quota-'));
  const path = join(dir, 'collector.yaml');
  const config = {
    api: { baseUrl, token, timeout: '5s' },
    accounts: ['acme'],
    jobs: {
      metrics: { enabled: false },
      statistic: { enabled: false },
      streamstat: { enabled: false },
      dvr: { streams: streams(n) },
    },
    sink: { type: 'file', path: join(dir, 'points.lp') },
    output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
    state: { dir: join(dir, 'state') },
    ...extra,
  };
  writeFileSync(path, stringify(config));
  return path;
}

const EXPECTED =
  'dvr: 102 snapshots/min needed, quota 60/min: ' +
  'each stream is read every 1m42s instead of every 1m (streams take turns)';

/** Configured work that cannot fit a quota is said at start, with the numbers, not left to fall behind
 * silently. */
describe('DVR work over the quota, through a real process', () => {
  let sim: Simulator;
  beforeAll(async () => {
    ensureBuilt();
    sim = await startSimulator({ quotas: NO_QUOTAS });
  });
  afterAll(() => sim.close());

  it('run --check: valid (exit 0), a warning naming dvr, calls needed, quota and stretched interval', async () => {
    const over = await runCli(['run', '--config', dvrConfig(sim.url, sim.token, 102), '--check']).exited;
    expect(over.code).toBe(0);
    expect(over.stdout).toContain(`warning: ${EXPECTED}\n`);
    const fits = await runCli(['run', '--config', dvrConfig(sim.url, sim.token, 60), '--check']).exited;
    expect(fits.code).toBe(0);
    expect(fits.stdout).not.toContain('warning');
  });

  it('run: the same line as a warn log entry at start, before the first pass; the ratio on /metrics', async () => {
    const port = await freePort();
    const config = dvrConfig(sim.url, sim.token, 102, { http: { port } });
    const run = runCli(['run', '--config', config], {}, { killAfterMs: PROCESS_LIMIT_MS });
    let stderr = '';
    run.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    await waitForOutput(() => stderr, /"event":"collector_started"/, run.exited);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^cdn_collector_quota_demand_ratio\{[^}]*api="dvr"[^}]*\} 1\.7$/m);
    run.child.kill('SIGTERM');
    const exit = await run.exited;
    const lines = exit.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; event?: string; api?: string });
    const warning = lines.find((l) => l.event === 'over_quota');
    expect(warning).toMatchObject({ level: 40, api: 'dvr' });
    expect(lines.findIndex((l) => l.event === 'over_quota')).toBeLessThan(
      lines.findIndex((l) => l.event === 'collector_started'),
    );
  });
});
