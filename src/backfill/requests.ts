/**
 * Backfills handed to the daemon that holds the state directory: `cdn-collector backfill` beside a running daemon
 * writes a request file into `<state.dir>/backfill/`, the daemon runs it in its own process — its limiter (live calls
 * first, the quota exact), its checkpoint store (no window collected twice, no checkpoint moved backwards) — and keeps
 * a status file next to it that the command follows. Files, not a port: it works wherever the state directory is
 * (`docker compose exec`, `kubectl exec`, a sidecar on the same volume), and spends no quota for anyone who cannot
 * write the state directory. Every file is replaced atomically, so readers see whole versions.
 */
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import {
  missingReadsAsNothing as nothing,
  readHandOverFile as read,
  readHandOverRequests,
  removeHandOverFiles,
  writeHandOverFile as replace,
  writeHandOverRequest,
} from '../state/hand-over-files.js';
import type { StateFormat } from '../state/json-state.js';
import type { BackfillPlan } from '../plan/planner.js';

const apiName = z.enum(API_NAMES as unknown as [ApiName, ...ApiName[]]);
const perApiCount = z.partialRecord(apiName, z.number().min(0));

const requestSchema = z.object({
  id: z.string().min(1),
  from: z.number(),
  to: z.number(),
  /** Job key prefixes (all checkpointed jobs when empty). */
  jobs: z.array(z.string()),
  /** Plan only: the daemon answers with the plan and collects nothing. */
  dryRun: z.boolean(),
  requestedAt: z.number(),
  /** The command that resumes it, as the operator typed it (`status` lists it while the range is unfinished). */
  command: z.string().optional(),
});
export type BackfillRequest = z.output<typeof requestSchema>;

const plannedJobSchema = z.object({ key: z.string(), api: apiName, spans: z.number().min(0) });
export type PlannedJob = z.output<typeof plannedJobSchema>;

const statusSchema = z.object({
  id: z.string().min(1),
  /** `planned`: a dry run's answer; `running`; then one of `done`, `incomplete` (failed jobs or set-aside spans),
   * `cancelled`. */
  state: z.enum(['planned', 'running', 'done', 'incomplete', 'cancelled']),
  plan: z.object({
    jobs: z.array(plannedJobSchema),
    calls: perApiCount,
    /** Absent in a status of a daemon older than it: then `calls` is all that is known. */
    callsMost: perApiCount.optional(),
    pagingMayAdd: z.array(apiName),
    spans: z.number(),
  }),
  spansDone: z.number(),
  points: z.number(),
  /** Calls made for this backfill, per API (the daemon's live calls not included). */
  calls: perApiCount,
  failed: z.array(z.string()),
  setAside: z.number(),
  /** Points the database refused for good (dead letters); absent in a status written before it was counted. */
  refused: z.number().optional(),
  /** Set when it stopped because the sink's file cannot grow (a full disk): the cause and the fix. */
  sinkFull: z.string().optional(),
  startedAt: z.number(),
  updatedAt: z.number(),
  /** The daemon's process id: a status that stops changing after the daemon died is recognisable. */
  pid: z.number().int(),
});
export type BackfillStatus = z.output<typeof statusSchema>;

/** Files from before they had a version read as version 1. */
const requestFormat: StateFormat<BackfillRequest | undefined> = { version: 1, schema: requestSchema, empty: nothing };
const statusFormat: StateFormat<BackfillStatus | undefined> = { version: 1, schema: statusSchema, empty: nothing };

const DIR = 'backfill';
const REQUEST = '.request.json';
const STATUS = '.status.json';
const CANCEL = '.cancel';

export const requestDir = (stateDir: string) => join(stateDir, DIR);

export const writeRequest = (stateDir: string, request: BackfillRequest) =>
  writeHandOverRequest(requestDir(stateDir), `${request.id}${REQUEST}`, requestFormat, request);

/** Every request in the directory, oldest first. */
export async function readRequests(stateDir: string): Promise<BackfillRequest[]> {
  return (await readHandOverRequests(requestDir(stateDir), REQUEST, requestFormat)).requests;
}

export const writeStatus = (stateDir: string, status: BackfillStatus) =>
  replace(join(requestDir(stateDir), `${status.id}${STATUS}`), statusFormat, status);

export const readStatus = (stateDir: string, id: string) =>
  read(join(requestDir(stateDir), `${id}${STATUS}`), statusFormat);

/** Asks the daemon to stop the backfill after the spans it is collecting (they are confirmed, so a rerun resumes). */
export const requestCancel = (stateDir: string, id: string) =>
  writeFile(join(requestDir(stateDir), `${id}${CANCEL}`), '');

export async function isCancelled(stateDir: string, id: string): Promise<boolean> {
  return access(join(requestDir(stateDir), `${id}${CANCEL}`)).then(
    () => true,
    () => false,
  );
}

/** Removes a request and its files (the command does once it has read the final status). */
export const removeRequest = (stateDir: string, id: string) =>
  removeHandOverFiles(requestDir(stateDir), id, [REQUEST, STATUS, CANCEL]);

export const isFinal = (state: BackfillStatus['state']) => state !== 'running';

/** The summary of a plan as the status file and `--dry-run` show it. */
export function planSummary(plan: BackfillPlan): BackfillStatus['plan'] {
  const { calls, callsMost, pagingMayAdd, spans } = plan;
  const jobs = plan.jobs.map(({ job, spans }) => ({ key: job.key, api: job.api, spans: spans.length }));
  return { jobs, calls, callsMost, pagingMayAdd, spans };
}
