import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { ensureBuilt } from './entry.js';

/**
 * The README's DVR section exports CDN_BASE_URL and CDN_TOKEN; a demo started later in that shell must
 * still talk only to its own simulator, never spend the real quota.
 */
describe('demo ignores the API environment variables', () => {
  let real: LoopbackServer;
  const dir = mkdtempSync(join(tmpdir(), 'demo-env-'));

  beforeAll(async () => {
    ensureBuilt();
    // Stands for the real service: answers like it would, and counts every request.
    real = await loopbackServer((_req, res) => json(res, { accounts: [] }));
  });
  afterAll(async () => {
    await real.close();
  });

  it('sends no request to CDN_BASE_URL whatever CDN_* says, and still collects from the simulator', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'real-token-from-file\n');
    const env = {
      CDN_BASE_URL: real.url,
      CDN_TOKEN: 'real-token',
      CDN_ACCOUNTS: 'auto',
      CDN_TOKEN_FILE: tokenFile,
      CDN_USERNAME: 'ops@example.com',
      CDN_PASSWORD: 'real-password',
    };
    const data = join(dir, 'data');
    const run = await runCli(['demo', '--hours', '1', '--duration', '1s', '--data-dir', data], env, {
      killAfterMs: 110_000,
    }).exited;
    expect(run.code, run.stderr).toBe(0);
    expect(real.requests).toEqual([]);
    expect(run.stdout).toMatch(/Simulator at http:\/\/127\.0\.0\.1:\d+/);
    expect(run.stdout).not.toContain(real.url);
    expect(run.stdout).toContain('missing windows: 0');
    expect(run.stdout).toMatch(/cdn_metrics\s+[1-9]/);
    expect(readFileSync(join(data, 'points.lp'), 'utf8')).toMatch(/^cdn_metrics,/m);
  }, 120_000);
});
