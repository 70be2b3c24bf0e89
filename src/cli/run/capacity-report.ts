import type { CollectorConfig } from '../../config/schema.js';
import { scheduleGapMs } from '../../config/fields/schedule-gap.js';
import { demandLine, overQuota, quotaDemand, type ApiDemand } from '../../plan/capacity.js';
import { sourceOf } from '../../sources/index.js';
import { buildJobs } from '../../sources/registry.js';
import { API_NAMES, perApi, type ApiName } from '../../spec/apis.js';

/**
 * The quota demand of a configuration (see plan/capacity.ts), for `run` (a warn line at start) and `run --check` (the
 * same lines on stdout). Jobs of accounts found by `accounts: auto` are not known before discovery: not counted.
 */
export function configDemand(config: CollectorConfig, now: number): ApiDemand[] {
  // Built without quotas: the demand of the configuration, not what DVR's turns let through.
  const jobs = buildJobs({ ...config, quotas: undefined }).filter((job) => config.jobs[job.api].enabled);
  const quotas = perApi((api) => ({ calls: config.quotas[api].calls, periodMs: config.quotas[api].period }));
  const gaps = new Map(
    API_NAMES.filter((api) => config.jobs[api].enabled).map((api) => [api, scheduleGapMs(config.jobs[api].schedule)]),
  );
  return quotaDemand(jobs, quotas, {
    now,
    passGapMs: (api: ApiName) => gaps.get(api),
    snapshots: (api) => sourceOf(api).snapshots === true,
  });
}

/** One line per API whose configured work exceeds its quota (none when everything fits). */
export function overQuotaLines(config: CollectorConfig, now: number): string[] {
  return overQuota(configDemand(config, now)).map(demandLine);
}
