/**
 * Backfills handed to the daemon that holds the state directory: `cdn-collector backfill` beside a running daemon
 * writes a request file into `<state.dir>/backfill/`, the daemon runs it in its own process — its limiter (live calls
 * first, the quota exact), its checkpoint store (no window collected twice, no checkpoint moved backwards) — and keeps
 * a status file next to it that the command follows. Files, not a port: it works wherever the state directory is
 * (`docker compose exec`, `kubectl exec`, a sidecar on the same volume), and spends no quota for anyone who cannot
 * write the state directory. Every file is replaced atomically, so readers see whole versions.
 */
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiName } from '../spec/apis.js';

export interface BackfillRequest {
  id: string;
  from: number;
  to: number;
  /** Job key prefixes (all checkpointed jobs when empty). */
  jobs: string[];
  /** Plan only: the daemon answers with the plan and collects nothing. */
  dryRun: boolean;
  requestedAt: number;
}

export interface PlannedJob {
  key: string;
  api: ApiName;
  spans: number;
}

export interface PlannedGapFill {
  from: number;
  to: number;
  spans: number;
  calls: Partial<Record<ApiName, number>>;
  callsMost: Partial<Record<ApiName, number>>;
}

export interface BackfillStatus {
  id: string;
  /** `planned`: a dry run's answer; `running`; then one of `done`, `incomplete` (failed jobs or set-aside spans), `cancelled`. */
  state: 'planned' | 'running' | 'done' | 'incomplete' | 'cancelled';
  plan: {
    jobs: PlannedJob[];
    calls: Partial<Record<ApiName, number>>;
    /** Absent in a status of a daemon older than it: then `calls` is all that is known. */
    callsMost?: Partial<Record<ApiName, number>>;
    pagingMayAdd: ApiName[];
    spans: number;
    /** The gap collection fills afterwards (planner.ts GapFill), when the backfill reaches before a job's origin. */
    fillAfter?: PlannedGapFill;
  };
  spansDone: number;
  points: number;
  /** Calls made for this backfill, per API (the daemon's live calls not included). */
  calls: Partial<Record<ApiName, number>>;
  failed: string[];
  setAside: number;
  /** Points the database refused for good (dead letters); absent in a status written before it was counted. */
  refused?: number;
  startedAt: number;
  updatedAt: number;
  /** The daemon's process id: a status that stops changing after the daemon died is recognisable. */
  pid: number;
}

const DIR = 'backfill';
const REQUEST = '.request.json';
const STATUS = '.status.json';
const CANCEL = '.cancel';

export const requestDir = (stateDir: string) => join(stateDir, DIR);

async function replace(path: string, data: unknown): Promise<void> {
  const temp = `${path}.tmp-${process.pid}`;
  await writeFile(temp, `${JSON.stringify(data)}\n`);
  await rename(temp, path);
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return undefined;
    throw err;
  }
}

export async function writeRequest(stateDir: string, request: BackfillRequest): Promise<void> {
  await mkdir(requestDir(stateDir), { recursive: true });
  await replace(join(requestDir(stateDir), `${request.id}${REQUEST}`), request);
}

/** Every request in the directory, oldest first (unreadable ones are skipped: a writer may still be renaming). */
export async function readRequests(stateDir: string): Promise<BackfillRequest[]> {
  let names: string[];
  try {
    names = await readdir(requestDir(stateDir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const requests = await Promise.all(
    names.filter((n) => n.endsWith(REQUEST)).map((n) => readJson<BackfillRequest>(join(requestDir(stateDir), n))),
  );
  return requests.filter((r): r is BackfillRequest => r !== undefined && typeof r.id === 'string').sort((a, b) => a.requestedAt - b.requestedAt);
}

export const writeStatus = (stateDir: string, status: BackfillStatus) => replace(join(requestDir(stateDir), `${status.id}${STATUS}`), status);

export const readStatus = (stateDir: string, id: string) => readJson<BackfillStatus>(join(requestDir(stateDir), `${id}${STATUS}`));

/** Asks the daemon to stop the backfill after the spans it is collecting (they are confirmed, so a rerun resumes). */
export const requestCancel = (stateDir: string, id: string) => writeFile(join(requestDir(stateDir), `${id}${CANCEL}`), '');

export async function isCancelled(stateDir: string, id: string): Promise<boolean> {
  return access(join(requestDir(stateDir), `${id}${CANCEL}`)).then(
    () => true,
    () => false,
  );
}

/** Removes a request and its files (the command does once it has read the final status). */
export async function removeRequest(stateDir: string, id: string): Promise<void> {
  await Promise.all([REQUEST, STATUS, CANCEL].map((suffix) => rm(join(requestDir(stateDir), `${id}${suffix}`), { force: true })));
}

export const isFinal = (state: BackfillStatus['state']) => state !== 'running';
