import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatherStatus } from '../../src/cli/status-report.js';
import { parseConfig } from '../../src/config/loader.js';
import { readDaemonStatus, writeDaemonStatus, type DaemonStatus } from '../../src/state/daemon-status.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A state directory and a configuration reading it (the metrics API alone). */
function stateDir() {
  const dir = mkdtempSync(join(tmpdir(), 'daemon-status-'));
  dirs.push(dir);
  const off = { enabled: false };
  const config = parseConfig(
    {
      api: { baseUrl: 'http://127.0.0.1:1', token: 'daemon-status-token' },
      accounts: ['acme'],
      jobs: { statistic: off, streamstat: off, dvr: off },
      sink: { type: 'file', path: join(dir, 'out.lp') },
      state: { dir },
    },
    {},
  );
  return { dir, config };
}

/** A report of this (live) process, as the daemon writes it every second. */
const report = (): DaemonStatus => ({
  pid: process.pid,
  host: hostname(),
  updatedAt: Date.now(),
  jobs: { 'metrics/acme': { lagMs: 90_000, backlog: 1 } },
  apis: { metrics: { used: 4, queued: 0 } },
});

describe("daemon-status.json's failing APIs and sink", () => {
  it('reads back as written, and `status` shows them by their /healthz condition', async () => {
    const { dir, config } = stateDir();
    const since = Date.parse('2026-11-26T09:00:00Z');
    const failing = { sink: { since, failures: 12, last: 'ECONNREFUSED' }, 'api:metrics': { since, failures: 3 } };
    await writeDaemonStatus(dir, { ...report(), failing });
    expect((await readDaemonStatus(dir))?.failing).toEqual(failing);
    expect((await gatherStatus(config)).failing).toEqual({
      sink: { since: '2026-11-26T09:00:00.000Z', failures: 12, last: 'ECONNREFUSED' },
      'api:metrics': { since: '2026-11-26T09:00:00.000Z', failures: 3, last: null },
    });
  });

  it('a report of a daemon from before them still reads (with a version or without): nothing fails', async () => {
    const { dir, config } = stateDir();
    for (const text of [JSON.stringify({ version: 1, ...report() }), JSON.stringify(report())]) {
      writeFileSync(join(dir, 'daemon-status.json'), text);
      const read = await readDaemonStatus(dir);
      expect(read).toMatchObject({ pid: process.pid, jobs: { 'metrics/acme': { backlog: 1 } } });
      expect(read?.failing).toBeUndefined();
      const status = await gatherStatus(config);
      expect(status.daemon?.pid).toBe(process.pid);
      expect(status.failing).toEqual({});
      expect(status.problems).toEqual([]);
    }
  });
});
