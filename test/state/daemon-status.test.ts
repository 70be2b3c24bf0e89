import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatherStatus } from '../../src/cli/status/status-report.js';
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
    expect((await readDaemonStatus(dir)).status?.failing).toEqual(failing);
    expect((await gatherStatus(config)).failing).toEqual({
      sink: { since: '2026-11-26T09:00:00.000Z', failures: 12, last: 'ECONNREFUSED' },
      'api:metrics': { since: '2026-11-26T09:00:00.000Z', failures: 3, last: null },
    });
  });

  it('a report of a daemon from before them still reads (with a version or without): nothing fails', async () => {
    const { dir, config } = stateDir();
    for (const text of [JSON.stringify({ version: 1, ...report() }), JSON.stringify(report())]) {
      writeFileSync(join(dir, 'daemon-status.json'), text);
      const read = (await readDaemonStatus(dir)).status;
      expect(read).toMatchObject({ pid: process.pid, jobs: { 'metrics/acme': { backlog: 1 } } });
      expect(read?.failing).toBeUndefined();
      const status = await gatherStatus(config);
      expect(status.daemon?.pid).toBe(process.pid);
      expect(status.failing).toEqual({});
      expect(status.problems).toEqual([]);
    }
  });
});

/**
 * A `failing` that is garbage (hand-edited, another tool's, a bug): `status` neither crashes on it nor loses the
 * daemon's report over it — the field is left out with a problem naming it, the rest is read.
 */
describe("a daemon report whose 'failing' is garbage", () => {
  it.each([
    ['not an object', 'sink down'],
    ['a time no Date holds', { sink: { since: 1e300, failures: 1 } }],
    ['a time that is text', { sink: { since: 'yesterday', failures: 1 } }],
    ['a name that is no condition', { 'api:nope': { since: 0, failures: 3 } }],
  ])('%s: the daemon still reads as running, nothing failing, a problem names the field', async (_, failing) => {
    const { dir, config } = stateDir();
    writeFileSync(join(dir, 'daemon-status.json'), JSON.stringify({ version: 1, ...report(), failing }));
    const status = await gatherStatus(config);
    expect(status.daemon?.pid).toBe(process.pid);
    expect(status.failing).toEqual({});
    expect(status.problems).toEqual([expect.stringMatching(/daemon-status\.json: failing ignored \(failing/)]);
  });
});
