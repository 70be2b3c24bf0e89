/**
 * `backfill` against a database that refuses every write, with spans larger than the sink's queue: the process must
 * end with a message and exit 1 (not 13, "unsettled top-level await", silently) and release state.lock.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/time.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { backfillArgs, runCli } from '../helpers/cli.js';
import { useSimulator } from '../helpers/sim.js';
import { writeSimConfig } from '../helpers/collector.js';

describe('backfill with the database refusing writes', () => {
  const s = useSimulator();
  let db: LoopbackServer;
  beforeAll(async () => {
    // 404 (database not found) is not retried, so the run ends at once instead of after the write-retry deadline.
    db = await loopbackServer((req, res) => {
      req.resume();
      req.once('end', () =>
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"database not found: db"}'),
      );
    });
  });
  afterAll(() => db.close());

  it('exits 1 with a message naming the failure, frees state.lock, when one span exceeds the sink queue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostile-bf-'));
    const config = writeSimConfig(dir, s.sim, {
      // One statistic span (a day of 5-minute buckets) is far more than 3 × batchSize lines.
      jobs: {
        metrics: { enabled: false },
        streamstat: { enabled: false },
        dvr: { enabled: false },
        statistic: { groupings: ['resources'] },
      },
      sink: { type: 'influx-v1', url: db.url, database: 'db' },
      output: { batchSize: 5, deadLetterPath: join(dir, 'dead.jsonl') },
      log: { level: 'error' },
    });
    const to = Math.floor((Date.now() - 2 * HOUR) / DAY) * DAY;
    const r = await runCli(backfillArgs(config, to - DAY, to)).exited;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/backfill incomplete.*statistic/);
    expect(existsSync(join(dir, 'state', 'state.lock'))).toBe(false);
    expect(db.requests.length).toBeGreaterThan(0);
  }, 20_000);
});
