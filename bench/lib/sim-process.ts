/**
 * The simulator in its own process (`cdn-collector sim`), as the real API is: its CPU work (building responses) must
 * not
 * stall the collector's event loop, or the benchmark would measure the simulator, not the collector. Needs `npm run
 * build` (dist/), which `npm run bench` does first.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import type { ApiName } from '../../src/spec/apis.js';
import type { ApiStats } from '../../src/sim/stats.js';
import type { CollectorConfig } from '../../src/config/schema.js';
import { NO_QUOTAS, SlidingQuota, type QuotaRule } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import { configFor } from '../../test/helpers/collector.js';
import { ROOT } from './results.js';

export interface SimProcess {
  url: string;
  token: string;
  accounts: string[];
  streams: Array<{ account: string; stream: string }>;
  /** What the simulator saw so far, per API. */
  stats(): Promise<{ now: number; apis: Record<ApiName, ApiStats> }>;
  /** Peak RSS of the simulator process is not ours: stop it before reading our own. */
  close(): Promise<void>;
}

export interface SimProcessOptions {
  quotas?: Partial<Record<ApiName, QuotaRule | null>>;
  resources?: number;
  streams?: number;
  accounts?: number;
  /** Simulated clock speed (ScaledClock started at the simulator's start). */
  clockSpeed?: number;
}

export async function startSimProcess(options: SimProcessOptions = {}): Promise<SimProcess> {
  const bin = join(ROOT, 'bin', 'cdn-collector.js');
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ missing: run `npm run build` first');
  const args = [bin, 'sim'];
  for (const [api, rule] of Object.entries(options.quotas ?? {}))
    args.push('--quota', rule ? `${api}=${rule.calls}/${rule.periodMs}ms` : `${api}=off`);
  if (options.accounts) args.push('--accounts', String(options.accounts));
  if (options.resources) args.push('--resources', String(options.resources));
  if (options.streams) args.push('--streams', String(options.streams));
  if (options.clockSpeed) args.push('--clock-speed', String(options.clockSpeed));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const info = JSON.parse(first) as Pick<SimProcess, 'url' | 'token' | 'accounts' | 'streams'>;
  return {
    ...info,
    async stats() {
      const res = await request(`${info.url}/_sim/stats`);
      return (await res.body.json()) as { now: number; apis: Record<ApiName, ApiStats> };
    },
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A validated collector config pointed at `sim` with its quotas (the tests' `configFor`, which wants a Simulator for
 * url, token, accounts, streams and quota), a temp state dir, and `sink`.
 */
export function configForProcess(
  sim: SimProcess,
  quotas: SimProcessOptions['quotas'],
  sink: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
): CollectorConfig {
  const quota = new SlidingQuota({ ...NO_QUOTAS, ...quotas });
  return configFor({ ...sim, quota } as unknown as Simulator, sink, overrides);
}
