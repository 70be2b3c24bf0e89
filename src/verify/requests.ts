/**
 * Verifies handed to the daemon that holds the state directory: `cdn-collector verify` beside a running daemon writes
 * a request into `<state.dir>/verify/`, the daemon runs it in its own process — its limiter (the quota exact, live
 * calls first), its sink for a repair — and writes the report into a result file the command reads. The same files
 * as a handed-over backfill (backfill/requests.ts), each replaced atomically.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  missingReadsAsNothing as nothing,
  readHandOverFile as read,
  readHandOverRequests,
  removeHandOverFiles,
  writeHandOverFile,
  writeHandOverRequest,
} from '../state/hand-over-files.js';
import type { StateFormat } from '../state/json-state.js';

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

const requestFormat: StateFormat<VerifyRequest | undefined> = { version: 1, schema: requestSchema, empty: nothing };
const resultFormat: StateFormat<VerifyResult | undefined> = { version: 1, schema: resultSchema, empty: nothing };

const REQUEST = '.request.json';
const RESULT = '.result.json';
const dirOf = (stateDir: string) => join(stateDir, 'verify');

export const writeVerifyRequest = (stateDir: string, request: VerifyRequest) =>
  writeHandOverRequest(dirOf(stateDir), `${request.id}${REQUEST}`, requestFormat, request);

/** The requests waiting or running, oldest first, and the ids of results whose request is gone (to remove). */
export async function readVerifyRequests(stateDir: string): Promise<{ requests: VerifyRequest[]; orphans: string[] }> {
  const { requests, names } = await readHandOverRequests(dirOf(stateDir), REQUEST, requestFormat);
  const requested = new Set(requests.map((r) => r.id));
  const results = names.filter((n) => n.endsWith(RESULT)).map((n) => n.slice(0, -RESULT.length));
  return { requests, orphans: results.filter((id) => !requested.has(id)) };
}

export const writeVerifyResult = (stateDir: string, result: VerifyResult) =>
  writeHandOverFile(join(dirOf(stateDir), `${result.id}${RESULT}`), resultFormat, result);

export const readVerifyResult = (stateDir: string, id: string) =>
  read(join(dirOf(stateDir), `${id}${RESULT}`), resultFormat);

/** Removes a request and its result (the command does once it has read the result). */
export const removeVerifyRequest = (stateDir: string, id: string) =>
  removeHandOverFiles(dirOf(stateDir), id, [REQUEST, RESULT]);

/** Whether the request is still there: its command removes it when it ends, stopped (Ctrl-C) included. */
export async function verifyRequested(stateDir: string, id: string): Promise<boolean> {
  return access(join(dirOf(stateDir), `${id}${REQUEST}`)).then(
    () => true,
    () => false,
  );
}
