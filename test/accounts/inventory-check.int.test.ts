import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editDistance, nearestName } from '../../src/edit-distance.js';
import { runCli } from '../helpers/cli.js';
import { onlyJobs, writeSimConfig } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';
import { readCheckpoints } from '../helpers/state-files.js';
import { ensureBuilt } from '../ops/entry.js';

/** Wait bound of a process (not an assertion). */
const PROCESS_LIMIT_MS = 90_000;

/**
 * At start, `run`, `backfill` and `run --check --online` check the configured accounts against the token's inventory
 * (`GET /app/inventory/v1/accounts/`, outside every quota): an account it does not list is a config error naming it,
 * the accounts it lists and the nearest of them; nothing is called, written or confirmed.
 */
describe('configured accounts checked against the inventory at start', () => {
  const s = useSimulator({ world: { accounts: 2 } }); // acme, globex

  const setUp = (accounts: string[]) => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'inventory-check-'));
    const config = writeSimConfig(dir, s.sim, {
      accounts,
      jobs: onlyJobs({ metrics: { window: '1m', byResource: false }, statistic: { groupings: ['total'] } }),
    });
    return { dir, config };
  };

  const commands: Array<[string, (config: string) => string[]]> = [
    ['run --once', (config) => ['run', '--once', '--config', config]],
    ['run --check --online', (config) => ['run', '--check', '--online', '--config', config]],
    [
      'backfill',
      (config) => ['backfill', '--config', config, '--from', '2026-01-01T00:00:00Z', '--to', '2026-01-01T01:00:00Z'],
    ],
  ];
  for (const [name, args] of commands) {
    it(
      `${name}: an account the inventory does not list is one config error line (exit 2), nothing collected`,
      async () => {
        const { dir, config } = setUp(['acme', 'nosuch']);
        const before = { ...s.sim.stats.apis.metrics, statistic: s.sim.stats.apis.statistic.requests };
        const exit = await runCli(args(config), {}, { killAfterMs: PROCESS_LIMIT_MS }).exited;
        expect(exit.code, exit.stdout + exit.stderr).toBe(2);
        const line = exit.stderr.split('\n').find((l) => l.includes('accounts.1'));
        expect(line, exit.stderr).toBeDefined();
        expect(line).toContain('"nosuch"');
        expect(line).toContain('acme, globex'); // what the inventory lists
        expect(line).toMatch(/nearest: "(acme|globex)"/);
        expect(s.sim.stats.apis.metrics.requests).toBe(before.requests);
        expect(s.sim.stats.apis.statistic.requests).toBe(before.statistic);
        expect(existsSync(join(dir, 'out.lp'))).toBe(false);
        expect(readCheckpoints(join(dir, 'state')).size).toBe(0);
      },
      PROCESS_LIMIT_MS,
    );
  }

  it(
    'a mistyped name is answered with the nearest listed one',
    async () => {
      const { config } = setUp(['acme', 'glebex']);
      const exit = await runCli(['run', '--once', '--config', config], {}, { killAfterMs: PROCESS_LIMIT_MS }).exited;
      expect(exit.code, exit.stderr).toBe(2);
      expect(exit.stderr).toMatch(/accounts\.1: "glebex" .*nearest: "globex"/);
    },
    PROCESS_LIMIT_MS,
  );

  it(
    'accounts the inventory lists start as before',
    async () => {
      const { dir, config } = setUp(['acme', 'globex']);
      const exit = await runCli(['run', '--once', '--config', config], {}, { killAfterMs: PROCESS_LIMIT_MS }).exited;
      expect(exit.code, exit.stdout + exit.stderr).toBe(0);
      expect(readCheckpoints(join(dir, 'state')).has('metrics/globex')).toBe(true);
    },
    PROCESS_LIMIT_MS,
  );
});

describe('edit distance', () => {
  it('counts insertions, deletions and substitutions; the nearest name ignores case', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('acme', 'acme')).toBe(0);
    expect(nearestName('ACMEE', ['globex', 'acme'])).toBe('acme');
    expect(nearestName('x', [])).toBeUndefined();
  });
});
