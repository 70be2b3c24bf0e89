import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatherStatus } from '../../src/cli/status/status-report.js';
import { parseConfig } from '../../src/config/loader.js';

describe('status: which checkpoints belong to the configuration', () => {
  it('lists per-account totals under the shared /times/accounts job, never as "(not configured)"', async () => {
    const config = parseConfig(
      {
        api: { baseUrl: 'http://127.0.0.1:1', token: 'secret-token-123' },
        accounts: ['acme', 'globex'],
        sink: { type: 'file', path: '-' },
        state: { dir: mkdtempSync(join(tmpdir(), 'status-keys-')) },
      },
      {},
    );
    const report = await gatherStatus(config);
    const byKey = new Map(report.jobs.map((j) => [j.key, j.configured]));
    expect(byKey.get('statistic/*/total')).toBe(true);
    expect(byKey.has('statistic/acme/total')).toBe(false);
    expect(Object.keys(report.jobs.find((j) => j.key === 'statistic/*/total')?.checkpoints ?? {})).toEqual([
      'statistic/acme/total',
      'statistic/globex/total',
    ]);
    expect([...byKey.values()].every(Boolean)).toBe(true);
  });
});
