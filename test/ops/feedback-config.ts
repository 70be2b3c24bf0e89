/** Config files for the feedback tests: a collector pointed at whatever a test names. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { configQuotasOf } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';

export interface FeedbackConfig {
  dir: string;
  path: string;
  stateDir: string;
  pointsPath: string;
}

/**
 * A config of `accounts` on `baseUrl`, metrics only unless `apis` says more, 10 minutes of history, the sink a file
 * unless `sink` is given. With `sim`, its (scaled) quotas.
 */
export function feedbackConfig(options: {
  baseUrl: string;
  token: string;
  accounts: string[];
  apis?: Array<'metrics' | 'statistic' | 'streamstat' | 'dvr'>;
  sim?: Simulator;
  sink?: Record<string, unknown>;
  extra?: Record<string, unknown>;
}): FeedbackConfig {
  const dir = mkdtempSync(join(tmpdir(), 'ops-feedback-'));
  const apis = options.apis ?? ['metrics'];
  const stateDir = join(dir, 'state');
  const pointsPath = join(dir, 'points.lp');
  const config = {
    api: { baseUrl: options.baseUrl, token: options.token, timeout: '5s' },
    accounts: options.accounts,
    ...(options.sim ? { quotas: configQuotasOf(options.sim.quota) } : {}),
    jobs: {
      metrics: { enabled: apis.includes('metrics'), window: '1m', byResource: false, schedule: '* * * * * *' },
      statistic: { enabled: apis.includes('statistic') },
      streamstat: { enabled: apis.includes('streamstat') },
      dvr: apis.includes('dvr') && options.sim ? { streams: options.sim.streams.slice(0, 1) } : { enabled: false },
    },
    sink: options.sink ?? { type: 'file', path: pointsPath },
    output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
    state: { dir: stateDir, initialLookback: '10m' },
    ...options.extra,
  };
  const path = join(dir, 'collector.yaml');
  writeFileSync(path, stringify(config));
  return { dir, path, stateDir, pointsPath };
}

/** Resolves when `read()` matches `pattern` (polled; the process's own exit is the bound of the wait). */
export async function waitForOutput(read: () => string, pattern: RegExp, exited: Promise<unknown>): Promise<string> {
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    const text = read();
    const match = pattern.exec(text);
    if (match) return match[0];
    if (done) throw new Error(`process exited before printing ${pattern}:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
