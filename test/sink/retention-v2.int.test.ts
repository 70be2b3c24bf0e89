import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRetention, retentionWarning } from '../../src/sink/retention.js';
import { runCli } from '../helpers/cli.js';
import { json, loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { ensureBuilt } from '../ops/entry.js';

const HOUR = 3_600_000;
const TOKEN = 'v2-token-for-the-bucket-lookup';

/** A bucket as InfluxDB 2.x lists it (GET /api/v2/buckets, docs.influxdata.com/influxdb/v2/api/#operation/GetBuckets).
 * */
function bucket(name: string, everySeconds: number | undefined) {
  return {
    id: '0f2a7c4a2cbf5000',
    orgID: '9a1a5b2b1c3d4e5f',
    type: 'user',
    name,
    retentionRules:
      everySeconds === undefined ? [] : [{ type: 'expire', everySeconds, shardGroupDurationSeconds: 3600 }],
    createdAt: '2026-11-01T00:00:00Z',
    updatedAt: '2026-11-01T00:00:00Z',
    links: { self: `/api/v2/buckets/0f2a7c4a2cbf5000` },
    labels: [],
  };
}

/** The InfluxDB 2 retention of the bucket a backfill writes to, read from GET /api/v2/buckets?name=&org=. */
describe('InfluxDB 2 bucket retention', () => {
  let server: LoopbackServer;
  const target = (name: string) => ({
    type: 'influx-v2' as const,
    url: server.url,
    token: TOKEN,
    org: 'acme',
    bucket: name,
  });

  beforeAll(async () => {
    server = await loopbackServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.headers.authorization !== `Token ${TOKEN}`)
        return json(res, { code: 'unauthorized', message: 'unauthorized access' }, 401);
      if (url.pathname !== '/api/v2/buckets') return json(res, { code: 'not found', message: 'path not found' }, 404);
      if (url.searchParams.get('org') !== 'acme')
        return json(
          res,
          { code: 'not found', message: `organization name "${url.searchParams.get('org')}" not found` },
          404,
        );
      const name = url.searchParams.get('name');
      const buckets = [bucket('hourly', 3600), bucket('forever', undefined), bucket('zero', 0)].filter(
        (b) => b.name === name,
      );
      json(res, { links: { self: req.url }, buckets });
    });
  });
  afterAll(async () => server?.close());

  it('reads everySeconds of the expire rule; none or 0 is forever', async () => {
    expect(await readRetention(target('hourly'))).toEqual({ target: 'bucket "hourly"', durationMs: HOUR });
    expect(await readRetention(target('forever'))).toEqual({ target: 'bucket "forever"', durationMs: undefined });
    expect(await readRetention(target('zero'))).toEqual({ target: 'bucket "zero"', durationMs: undefined });
    const asked = new URL(server.requests.at(-1)!.url, 'http://x');
    expect(Object.fromEntries(asked.searchParams)).toEqual({ name: 'zero', org: 'acme' });
  });

  it('a missing bucket, a wrong org or token is a one-line error, without the token', async () => {
    await expect(readRetention(target('absent'))).rejects.toThrow('bucket "absent" not found in org "acme"');
    await expect(readRetention({ ...target('hourly'), org: 'other' })).rejects.toThrow(
      /HTTP 404: .*organization name "other" not found/,
    );
    const wrongToken = readRetention({ ...target('hourly'), token: 'not-the-token' });
    await expect(wrongToken).rejects.toThrow(/HTTP 401/);
    await expect(wrongToken).rejects.not.toThrow(/not-the-token/);
  });

  it('warns when the range starts before what the bucket keeps', async () => {
    const now = Date.now();
    const hourly = await readRetention(target('hourly'));
    expect(retentionWarning(hourly, now - 4 * HOUR, now)).toContain(
      `points older than ${new Date(now - HOUR).toISOString()} will be refused`,
    );
    expect(retentionWarning(hourly, now - HOUR / 2, now)).toBeUndefined();
  });

  it('backfill prints the warning before it starts (here its plan), exit as usual', async () => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'retention-v2-'));
    const config = join(dir, 'collector.yaml');
    writeFileSync(
      config,
      stringify({
        api: { baseUrl: 'http://127.0.0.1:9', token: 'api-token-unused-here' },
        accounts: ['acme'],
        jobs: {
          metrics: { window: '10m' },
          statistic: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
        },
        sink: { type: 'influx-v2', url: server.url, token: TOKEN, org: 'acme', bucket: 'hourly' },
        state: { dir: join(dir, 'state') },
      }),
    );
    const from = new Date(Date.now() - 4 * HOUR).toISOString();
    const exit = await runCli(
      ['backfill', '--config', config, '--from', from, '--dry-run'],
      {},
      { killAfterMs: 60_000 },
    ).exited;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(
      new RegExp(
        /^warning: the range starts before what the bucket "hourly" keeps \(1 h\): /.source +
          /points older than \S+ will be refused/.source,
        'm',
      ),
    );
    expect(exit.stdout).toMatch(/^Backfill /);
    expect(exit.stderr + exit.stdout).not.toContain(TOKEN);
  }, 60_000);
});
