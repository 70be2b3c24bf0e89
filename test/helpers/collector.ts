import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ManualClock, type Clock } from '../../src/clock.js';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { parseConfig } from '../../src/config/loader.js';
import { checkConfig } from '../../src/config/rules.js';
import type { CollectorConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { configQuotasOf, scaledQuotas } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import { perApi, type ApiName } from '../../src/spec/apis.js';
import { capturedLogger } from './captured-log.js';
import { T0 } from './fake-job.js';

/** Quota periods scaled down so that days of history backfill in seconds (same calls per period as the spec). */
export const FAST_QUOTAS = scaledQuotas(1000);

/** A validated collector config pointed at `sim`, with the same (scaled) quotas, a temp state dir and `sink`. */
export function configFor(
  sim: Simulator,
  sink: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
): CollectorConfig {
  const dir = mkdtempSync(join(tmpdir(), 'collector-'));
  const config = parseConfig(
    {
      api: { baseUrl: sim.url, token: sim.token },
      accounts: sim.accounts,
      quotas: configQuotasOf(sim.quota),
      jobs: { dvr: { streams: sim.streams } },
      sink,
      output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
      state: { dir: join(dir, 'state') },
      log: { level: 'warn' },
      ...overrides,
    },
    {},
  );
  checkConfig(config);
  return config;
}

/** A validated config of account acme, its state and dead letters in `dir`; `sections` add the rest or replace. */
export function configIn(dir: string, sections: Record<string, unknown>): CollectorConfig {
  const base = {
    accounts: ['acme'],
    output: { deadLetterPath: join(dir, 'dead.jsonl') },
    state: { dir: join(dir, 'state') },
  };
  return parseConfig({ ...base, ...sections }, {});
}

/** A line of a captured log: its level, message and fields. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A runtime of `config` on a ManualClock at T0 whose log is captured: `logLines()` are its lines so far, parsed. */
export async function capturedRuntime(config: CollectorConfig) {
  const clock = new ManualClock(T0);
  const { log, text } = capturedLogger();
  const rt = await createRuntime(config, clock, log);
  const logLines = () =>
    text()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);
  return { rt, clock, logLines };
}

export async function runtimeFor(config: CollectorConfig, clock?: Clock): Promise<Runtime> {
  const { systemClock } = await import('../../src/clock.js');
  return createRuntime(config, clock ?? systemClock, createLogger('warn', { pretty: false }));
}

/**
 * A YAML config file in `dir` for a CLI run against `sim`: account acme, the simulator's quotas, DVR off, the file
 * sink `dir/out.lp`, state in `dir/state`; `overrides` replace whole top-level sections.
 */
export function writeSimConfig(dir: string, sim: Simulator, overrides: Record<string, unknown> = {}): string {
  const path = join(dir, 'collector.yaml');
  const config = {
    api: { baseUrl: sim.url, token: sim.token },
    accounts: ['acme'],
    quotas: configQuotasOf(sim.quota),
    jobs: { dvr: { enabled: false } },
    sink: { type: 'file', path: join(dir, 'out.lp') },
    state: { dir: join(dir, 'state') },
    ...overrides,
  };
  writeFileSync(path, stringify(config));
  return path;
}

/**
 * A config's `jobs` section that collects only the APIs given, with their settings, and disables every other one (a
 * config collects every API it does not mention).
 */
export function onlyJobs(jobs: Partial<Record<ApiName, Record<string, unknown>>>): Record<string, unknown> {
  return perApi((api) => jobs[api] ?? { enabled: false });
}
