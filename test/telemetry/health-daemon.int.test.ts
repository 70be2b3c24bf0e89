/**
 * /healthz tells the truth about a daemon that collects nothing: a real `run` process against the simulator, with a
 * wrong token, a database that answers 500, and an API that never answers in time. Waits are bounds, not assertions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { freePort } from '../helpers/servers.js';
import { ensureBuilt, spawnEntry, waitFor, type Entry } from '../ops/entry.js';

interface HealthBody {
  status: string;
  reasons?: Record<string, string>;
}

const WAIT_MS = 45_000;

describe('/healthz of a running daemon that collects nothing', () => {
  let sim: Simulator;
  let entry: Entry | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'health-daemon-'));

  beforeAll(async () => {
    ensureBuilt();
    sim = await startSimulator();
  }, 120_000);

  afterEach(async () => {
    if (entry && entry.child.exitCode === null) {
      entry.child.kill('SIGTERM');
      await entry.exited;
    }
    entry = undefined;
    sim.faults.set('metrics', undefined);
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts `run` with 1-minute metrics windows read every second; returns the /healthz reader. */
  async function startDaemon(name: string, overrides: { token?: string; sink?: unknown; api?: object; http?: object }) {
    const port = await freePort();
    const config = {
      api: { baseUrl: sim.url, token: overrides.token ?? sim.token, timeout: '2s', ...overrides.api },
      accounts: sim.accounts.slice(0, 1),
      jobs: {
        metrics: { window: '1m', delay: '1s', byResource: false, schedule: '* * * * * *' },
        statistic: { enabled: false },
        streamstat: { enabled: false },
        dvr: { enabled: false },
      },
      sink: overrides.sink ?? { type: 'file', path: join(dir, `${name}.lp`) },
      output: { deadLetterPath: join(dir, `${name}-dead-letters.jsonl`) },
      state: { dir: join(dir, `${name}-state`), initialLookback: '3m' },
      http: { port, host: '127.0.0.1', ...overrides.http },
    };
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, stringify(config));
    entry = spawnEntry(['run', '--config', file]);
    const url = `http://127.0.0.1:${port}`;
    const health = async () => {
      const res = await fetch(`${url}/healthz`);
      return { status: res.status, body: (await res.json()) as HealthBody };
    };
    return { url, health };
  }

  /** Waits for `probe`, failing at once if the daemon exits. */
  const until = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    const exited = entry!.exited.then((code) => {
      throw new Error(`the daemon exited (${code}) while waiting for ${what}\n${entry?.output() ?? ''}`);
    });
    return Promise.race([waitFor(what, probe, WAIT_MS, () => entry?.output() ?? ''), exited]);
  };

  it(
    'answers 503 naming the API as soon as a wrong token is refused, and /metrics has process and build metrics',
    async () => {
      const d = await startDaemon('token', { token: 'not-the-token' });
      const sick = await until('a 503', async () => {
        const h = await d.health();
        return h.status === 503 ? h : undefined;
      });
      expect(sick.body.status).toBe('unhealthy');
      expect(sick.body.reasons?.['api:metrics']).toMatch(
        /^every call refused with 40[13] since .*: the token is wrong/,
      );
      // Not a lag: the job's lag is seconds, far under the 2 h default.
      expect(Object.keys(sick.body.reasons ?? {})).toEqual(['api:metrics']);

      const text = await (await fetch(`${d.url}/metrics`)).text();
      for (const name of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'process_start_time_seconds',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(text).toMatch(new RegExp(`^# TYPE ${name} (gauge|counter)\\n${name} [0-9.e+-]+$`, 'm'));
      }
      expect(text).toMatch(/^cdn_collector_build_info\{version="\d+\.\d+\.\d+[^"]*"\} 1$/m);
      expect(text).toMatch(/^cdn_collector_unhealthy\{condition="api:metrics"\} 1$/m);
      const rss = Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)![1]);
      expect(rss).toBeGreaterThan(10 * 1024 * 1024);
      const started = Number(/^process_start_time_seconds (\S+)$/m.exec(text)![1]);
      expect(Math.abs(started * 1000 - Date.now())).toBeLessThan(5 * 60_000);
    },
    WAIT_MS + 30_000,
  );

  describe('with the database answering 500', () => {
    let db: LoopbackServer;
    let dbUp = false;
    beforeAll(async () => {
      db = await loopbackServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(dbUp ? 204 : 500, { 'content-type': 'application/json' });
          res.end(dbUp ? undefined : '{"error":"database is down"}');
        });
      });
    });
    afterAll(() => db?.close());

    it(
      'answers 503 naming the sink once writes have failed for sinkFailingAfter, and 200 once it is back',
      async () => {
        const d = await startDaemon('sink', {
          sink: { type: 'influx-v1', url: db.url, database: 'cdn' },
          http: { sinkFailingAfter: '3s' },
        });
        const sick = await until('a 503', async () => {
          const h = await d.health();
          return h.status === 503 ? h : undefined;
        });
        expect(sick.body.reasons?.sink).toMatch(/^every write failed for \d+ s \(\d+ failed writes? since /);
        expect(db.requests.length).toBeGreaterThan(0);
        dbUp = true;
        const well = await until('a 200 after the database recovered', async () => {
          const h = await d.health();
          return h.status === 200 ? h : undefined;
        });
        expect(well.body.status).toBe('ok');
      },
      2 * WAIT_MS + 30_000,
    );
  });

  it(
    'answers 503 naming a wedged API (every call times out) after apiFailingAfter, and 200 once it answers',
    async () => {
      sim.faults.set('metrics', { rate: 1, kinds: ['slow'], slowMs: 3_000 });
      const d = await startDaemon('wedged', { api: { timeout: '500ms' }, http: { apiFailingAfter: '3s' } });
      const sick = await until('a 503', async () => {
        const h = await d.health();
        return h.status === 503 ? h : undefined;
      });
      expect(sick.body.reasons?.['api:metrics']).toMatch(
        /^every call failed for \d+ s \(\d+ calls? since .*last: timeout\)$/,
      );
      sim.faults.set('metrics', undefined);
      await until('a 200 once the API answers', async () => {
        const h = await d.health();
        return h.status === 200 ? h : undefined;
      });
    },
    2 * WAIT_MS + 30_000,
  );
});
