/**
 * Verifies handed to the daemon that holds the state directory: `cdn-collector verify` beside a running daemon writes
 * a request into `<state.dir>/verify/`, the daemon runs it in its own process — its limiter (the quota exact, live
 * calls first), its sink for a repair — and writes the report into a result file the command reads. The same files
 * as a handed-over backfill (backfill/requests.ts), each replaced atomically.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { replaceFile } from '../state/durable-file.js';
import { encodeStateText, loadStateFile, type StateFormat } from '../state/json-state.js';

const requestSchema = z.object({
  id: z.string().min(1),
  from: z.number(),
  to: z.number(),
  windowMs: z.number(),
  repair: z.boolean(),
  requestedAt: z.number(),
});
export type VerifyRequest = z.output<typeof requestSchema>;

const seriesCheckSchema = z.object({
  measurement: z.string(),
  field: z.string(),
  account: z.string(),
  time: z.number(),
  windowMs: z.number(),
  expected: z.number(),
  stored: z.number(),
  difference: z.number(),
  relative: z.number().nullable(),
  tolerance: z.number(),
  drift: z.boolean(),
  jobs: z.array(z.string()),
});

/** A VerifyReport without `checked` (every series compared: the daemon's gauges have them, the command does not). */
const reportSchema = z.object({
  from: z.number(),
  to: z.number(),
  windowMs: z.number(),
  reader: z.enum(['influxql', 'flux', 'victoriametrics']),
  series: z.number(),
  drift: z.array(seriesCheckSchema),
  repair: z
    .object({
      recollected: z.record(z.string(), z.array(z.number())),
      points: z.number(),
      after: z.array(seriesCheckSchema),
    })
    .optional(),
});
export type HandedVerifyReport = z.output<typeof reportSchema>;

const resultSchema = z.object({
  id: z.string().min(1),
  state: z.enum(['running', 'done', 'failed']),
  report: reportSchema.optional(),
  /** A failed verify: its message and error code, as the command would have printed them. */
  error: z.object({ message: z.string(), code: z.string().optional() }).optional(),
  pid: z.number().int(),
  updatedAt: z.number(),
});
export type VerifyResult = z.output<typeof resultSchema>;

const nothing = () => undefined;
const requestFormat: StateFormat<VerifyRequest | undefined> = { version: 1, schema: requestSchema, empty: nothing };
const resultFormat: StateFormat<VerifyResult | undefined> = { version: 1, schema: resultSchema, empty: nothing };

const REQUEST = '.request.json';
const RESULT = '.result.json';
const dirOf = (stateDir: string) => join(stateDir, 'verify');

async function read<T>(path: string, format: StateFormat<T | undefined>): Promise<T | undefined> {
  const loaded = await loadStateFile(path, format);
  if (loaded.readError) throw loaded.readError;
  return loaded.value;
}

export async function writeVerifyRequest(stateDir: string, request: VerifyRequest): Promise<void> {
  await mkdir(dirOf(stateDir), { recursive: true });
  await replaceFile(join(dirOf(stateDir), `${request.id}${REQUEST}`), encodeStateText(requestFormat, request));
}

/** The requests waiting or running, oldest first, and the ids of results whose request is gone (to remove). */
export async function readVerifyRequests(stateDir: string): Promise<{ requests: VerifyRequest[]; orphans: string[] }> {
  let names: string[];
  try {
    names = await readdir(dirOf(stateDir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { requests: [], orphans: [] };
    throw err;
  }
  const ids = (suffix: string) => names.filter((n) => n.endsWith(suffix)).map((n) => n.slice(0, -suffix.length));
  const requested = ids(REQUEST);
  const read_ = await Promise.all(requested.map((id) => read(join(dirOf(stateDir), `${id}${REQUEST}`), requestFormat)));
  const requests = read_
    .filter((r): r is VerifyRequest => r !== undefined)
    .sort((a, b) => a.requestedAt - b.requestedAt);
  return { requests, orphans: ids(RESULT).filter((id) => !requested.includes(id)) };
}

export const writeVerifyResult = (stateDir: string, result: VerifyResult) =>
  replaceFile(join(dirOf(stateDir), `${result.id}${RESULT}`), encodeStateText(resultFormat, result));

export const readVerifyResult = (stateDir: string, id: string) =>
  read(join(dirOf(stateDir), `${id}${RESULT}`), resultFormat);

/** Removes a request and its result (the command does once it has read the result). */
export async function removeVerifyRequest(stateDir: string, id: string): Promise<void> {
  await Promise.all([REQUEST, RESULT].map((suffix) => rm(join(dirOf(stateDir), `${id}${suffix}`), { force: true })));
}
