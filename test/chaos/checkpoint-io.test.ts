import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_CONDITION } from '../../src/collector/job-state.js';
import { fileNameOf } from '../../src/state/checkpoint-file.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { fakeCollector, MIN, T0 } from '../helpers/fake-job.js';

/**
 * A checkpoint that cannot be written (here: a non-empty directory where the file's rename must land, as unwritable
 * as a full disk for root) must not crash the pass or advance anything: the span stays pending, /healthz turns 503
 * naming the job and the state problem, and once the checkpoint can be written again the next pass collects the span
 * and /healthz recovers by itself.
 */
describe('a checkpoint that cannot be written', () => {
  it('keeps the span pending, turns /healthz 503 with the reason, and recovers when writes work again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpoint-io-'));
    const t = await fakeCollector(dir, () => undefined, 2);
    const blocker = join(dir, fileNameOf(t.job.key));
    mkdirSync(blocker);
    writeFileSync(join(blocker, 'in-the-way'), '');

    const failed = await t.collector.runOnce(t.job, 'live');
    expect(failed.error).toMatch(/not a directory|is a directory|EISDIR|ENOTEMPTY|EEXIST|cannot use/i);
    expect(t.store.confirmed(t.job.key)).toEqual([]);
    const sick = evaluateHealth(t.telemetry, { maxLagMs: 24 * 60 * MIN });
    expect(sick.status).toBe('unhealthy');
    expect(sick.reasons?.[CHECKPOINT_CONDITION]).toContain('fake/job');

    rmSync(blocker, { recursive: true });
    const healed = await t.collector.runOnce(t.job, 'live');
    expect(healed.error).toBeUndefined();
    expect(t.store.missing(t.job.key, T0, T0 + 2 * MIN)).toEqual([]);
    expect(evaluateHealth(t.telemetry, { maxLagMs: 24 * 60 * MIN }).status).toBe('ok');
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
