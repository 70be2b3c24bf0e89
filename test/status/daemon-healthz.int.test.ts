/**
 * `status` beside a running daemon with `accounts: auto`: the jobs it lists are those /healthz lists, under the same
 * keys (one record: the daemon's telemetry, through daemon-status.json), DVR and jobs without a checkpoint included.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/servers.js';
import { ensureBuilt, spawnEntry, waitFor, type Entry } from '../ops/entry.js';

const WAIT_MS = 60_000;

describe('status and /healthz of one daemon', () => {
  let sim: Simulator;
  let daemon: Entry | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'status-healthz-'));

  beforeAll(async () => {
    ensureBuilt();
    sim = await startSimulator();
  }, 120_000);

  afterAll(async () => {
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'list the same jobs under the same keys, every one configured',
    async () => {
      const port = await freePort();
      const config = join(dir, 'collector.yaml');
      const stream = sim.streams[0]!;
      writeFileSync(
        config,
        stringify({
          api: { baseUrl: sim.url, token: sim.token },
          accounts: 'auto',
          jobs: {
            metrics: { window: '1m', delay: '1s', byResource: true },
            statistic: { groupings: ['total', 'regions'] },
            streamstat: { enabled: false },
            dvr: { streams: [stream] },
          },
          sink: { type: 'file', path: join(dir, 'out.lp') },
          state: { dir: join(dir, 'state'), initialLookback: '10m' },
          http: { port, host: '127.0.0.1' },
        }),
      );
      daemon = spawnEntry(['run', '--config', config, '--log-format', 'json']);
      const healthKeys = async () => {
        const body = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { jobs: object };
        return Object.keys(body.jobs).sort();
      };
      const statusJobs = async () => {
        const out = await runCli(['status', '--config', config, '--json']).exited;
        return (JSON.parse(out.stdout) as { daemon: unknown; jobs: Array<{ key: string; configured: boolean }> }).jobs;
      };
      const expected = [
        `dvr/${stream.account}/${stream.stream}`,
        'statistic/*/total',
        ...sim.accounts.flatMap((a) => [`metrics/${a}`, `metrics_resource/${a}`, `statistic/${a}/regions`]),
      ].sort();
      const keys = await waitFor(
        'every job in /healthz',
        async () => {
          const keys = await healthKeys();
          return expected.every((k) => keys.includes(k)) ? keys : undefined;
        },
        WAIT_MS,
        () => daemon!.output(),
      );
      const listed = await waitFor(
        'status listing the jobs /healthz lists',
        async () => {
          const jobs = await statusJobs();
          return JSON.stringify(jobs.map((j) => j.key)) === JSON.stringify(keys) ? jobs : undefined;
        },
        WAIT_MS,
        () => daemon!.output(),
      );
      expect(listed.map((j) => j.key)).toEqual(keys);
      expect(listed.every((j) => j.configured)).toBe(true);
    },
    3 * WAIT_MS,
  );
});
