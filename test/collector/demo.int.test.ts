import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '../../bin/cdn-collector.js');

/** The README's main job: `demo` against the built-in simulator, stopping by itself. Needs `npm run build` (npm test
 * does it). */
describe('cdn-collector demo', () => {
  it('backfills, reports no missing window and no 429, writes line protocol, and exits 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-'));
    const env = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('INFLUX_')) delete env[key];
    const run = spawnSync(process.execPath, [CLI, 'demo', '--hours', '2', '--duration', '2s', '--data-dir', dir], {
      encoding: 'utf8',
      env,
      timeout: 90_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('missing windows: 0');
    expect(run.stdout).not.toMatch(/429 from quota: [1-9]/);
    for (const m of ['cdn_metrics', 'cdn_metrics_resource', 'cdn_traffic', 'cdn_views', 'cdn_dvr', 'cdn_dvr_range']) {
      expect(run.stdout).toMatch(new RegExp(`${m}\\s+[1-9]`));
    }
    const lines = readFileSync(join(dir, 'points.lp'), 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(100);
    expect(lines.every((l) => /^cdn_[a-z_]+,/.test(l))).toBe(true);
  }, 120_000);
});
