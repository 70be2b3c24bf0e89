/**
 * What the running daemon knows and the state files do not — lag past set-aside spans, backlog, each job's last
 * error, each API's quota use, the APIs and the sink failing as /healthz names them — written by the daemon every
 * few seconds to `<state.dir>/daemon-status.json` for `cdn-collector status` (which reads it without any lock: the
 * file is replaced atomically).
 */
import { join } from 'node:path';
import { z } from 'zod';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import { MAX_DATE_MS } from '../time-text.js';
import { replaceFile } from './durable-file.js';
import { encodeStateText, loadStateFile, type StateFormat } from './json-state.js';

const apiQuotaUseSchema = z.object({
  /** Calls in flight plus calls completed within the last period: what the quota counts now. */
  used: z.number(),
  /** The quota: calls per period (absent: no quota). */
  calls: z.number().optional(),
  periodMs: z.number().optional(),
  /** Calls waiting for a slot. */
  queued: z.number(),
});
export type ApiQuotaUse = z.output<typeof apiQuotaUseSchema>;

/** A time `status` prints (epoch ms, maybe fractional on a scaled clock): one a Date can hold. */
const epochMs = z.number().min(-MAX_DATE_MS).max(MAX_DATE_MS);

/**
 * The /healthz conditions of a failing API (`api:metrics`) and of the sink: the names telemetry gives its runs of
 * failures, and the only ones this file holds.
 */
export const API_CONDITION = 'api:';
export const SINK_CONDITION = 'sink';
const FAILING_CONDITIONS: readonly string[] = [SINK_CONDITION, ...API_NAMES.map((api) => API_CONDITION + api)];

/** A run of failures as telemetry records it (telemetry/failing.ts), and /healthz names it. */
const failingRunSchema = z.object({
  /** The first failure with no success after it (epoch ms). */
  since: epochMs,
  /** Failed calls (an API) or writes (the sink) since then. */
  failures: z.number().int(),
  /** The last outcome: an HTTP status or a failure kind (an API), the reason of the last failed write (the sink). */
  last: z.union([z.number(), z.string()]).optional(),
});
export type FailingRun = z.output<typeof failingRunSchema>;

const failingSchema = z.record(
  z.string().refine((name) => FAILING_CONDITIONS.includes(name), 'not a condition of an API or the sink'),
  failingRunSchema,
);

const daemonStatusSchema = z.object({
  pid: z.number().int(),
  /** The host of `pid`: only there can a reader check that the process is alive. */
  host: z.string().optional(),
  updatedAt: epochMs,
  /** Set by the daemon's last report, written when it stopped. */
  stoppedAt: epochMs.optional(),
  /** Every job the daemon runs, by the keys /healthz names them with (one record: the daemon's telemetry). */
  jobs: z.record(
    z.string(),
    z.object({
      lagMs: z.number(),
      backlog: z.number(),
      lastError: z.object({ error: z.string(), at: epochMs }).optional(),
      /** False for a job without checkpoints (DVR snapshots, provisional reads). Absent in older reports: true. */
      checkpointed: z.boolean().optional(),
      /** The checkpoint keys of a job reading several accounts in one call (the shared statistic totals). */
      keys: z.array(z.string()).optional(),
    }),
  ),
  /** With `accounts: auto`: the accounts discovered so far (of this shard), from which `status` derives the jobs. */
  accounts: z.array(z.string()).optional(),
  apis: z.partialRecord(z.enum(API_NAMES as unknown as [ApiName, ...ApiName[]]), apiQuotaUseSchema),
  /**
   * The /healthz conditions of failing APIs (`api:<name>`) and the sink (`sink`), with their runs. Optional: a report
   * of a daemon from before it carried them reads as naming none (same version, nothing to migrate).
   */
  failing: failingSchema.optional(),
  /** Accounts an API refuses (the token may not read them), by name; absent: none, or a daemon from before. */
  refusedAccounts: z.record(z.string(), z.object({ api: z.string(), since: epochMs, reason: z.string() })).optional(),
});
export type DaemonStatus = z.output<typeof daemonStatusSchema>;

/** No report is undefined; a report from before the file had a version reads as version 1. */
const daemonStatusFormat: StateFormat<DaemonStatus | undefined> = {
  version: 1,
  schema: daemonStatusSchema,
  empty: () => undefined,
};

/** As read: `failing` checked on its own, so a damaged one costs only itself, not the daemon's whole report. */
const readFormat = { ...daemonStatusFormat, schema: daemonStatusSchema.extend({ failing: z.unknown().optional() }) };

const FILE = 'daemon-status.json';

/** Replaced atomically, no fsync: the daemon rewrites it every second. */
export async function writeDaemonStatus(stateDir: string, status: DaemonStatus): Promise<void> {
  await replaceFile(join(stateDir, FILE), encodeStateText(daemonStatusFormat, status));
}

/**
 * The daemon's last report (undefined when there is none: no daemon ran, or it is unreadable), and what of it could
 * not be read: the file, or only its `failing` (then left out, the rest read).
 */
export async function readDaemonStatus(stateDir: string): Promise<{ status?: DaemonStatus; problem?: string }> {
  const path = join(stateDir, FILE);
  const { value, problem } = await loadStateFile(path, readFormat);
  if (!value) return problem ? { problem } : {};
  const { failing, ...status } = value;
  if (failing === undefined) return { status };
  const parsed = failingSchema.safeParse(failing);
  if (parsed.success) return { status: { ...status, failing: parsed.data } };
  const issue = parsed.error.issues[0];
  return {
    status,
    problem: `${path}: failing ignored (${['failing', ...(issue?.path ?? [])].join('.')}: ${issue?.message})`,
  };
}
