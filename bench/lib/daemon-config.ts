/**
 * The config of a daemon bench (daemon-soak, big-account): every API of the simulator's accounts at the spec's
 * quotas (as the simulator enforces them), DVR for its streams, an InfluxDB v2 write API sink (VictoriaMetrics), the
 * telemetry port for /metrics, warn logs; `state` settings added (e.g. initialLookback), then `overrides` (top-level
 * sections, e.g. `accounts: auto`). Written as YAML into `dir`; returns its path.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { defaultQuotas } from '../../src/sim/quota.js';
import type { SimProcess } from './sim-process.js';

/**
 * The environment of a bench's daemon: as the image runs it (the Dockerfile's runtime ENV: glibc's malloc kept to two
 * arenas); `MALLOC_ARENA_MAX` set outside overrides it (e.g. empty, to measure glibc's default).
 */
export function daemonEnv(): NodeJS.ProcessEnv {
  return { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' };
}

export function writeDaemonConfig(
  dir: string,
  sim: SimProcess,
  sinkUrl: string,
  port: number,
  state: Record<string, string> = {},
  overrides: Record<string, unknown> = {},
): string {
  const path = join(dir, 'collector.yaml');
  writeFileSync(
    path,
    stringify({
      api: { baseUrl: sim.url, token: sim.token },
      accounts: sim.accounts,
      quotas: Object.fromEntries(
        Object.entries(defaultQuotas).map(([api, q]) => [api, { calls: q!.calls, period: `${q!.periodMs}ms` }]),
      ),
      jobs: { dvr: { streams: sim.streams } },
      sink: { type: 'influx-v2', url: sinkUrl, token: 't', org: 'o', bucket: 'b', backslashes: 'escaped' },
      output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
      state: { dir: join(dir, 'state'), ...state },
      http: { port, host: '127.0.0.1' },
      log: { level: 'warn' },
      ...overrides,
    }),
  );
  return path;
}
