/**
 * The references the sink bench compares our sinks with, each timed until the server has answered every line:
 * - bare: the official client (@influxdata/influxdb-client). v2: its WriteApi, bounded to `inFlight` batches on the
 *   wire (left alone it fires every request at once, and late ones time out: one run failed so); v1 (1.6 has no
 *   /api/v2/write): its `Point.toLineProtocol` lines POSTed to /write in batches, `inFlight` at a time.
 * - raw: the limit of the server and the HTTP path: bodies encoded (and gzipped where the sink gzips) before the clock
 *   starts, POSTed `inFlight` at a time.
 */
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import type { Point } from '../../src/points.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { createEncoder } from '../../src/sink/line-protocol.js';
import { DEFAULT_GZIP_MIN_BYTES } from '../../src/sink/types.js';
import { writeCalls } from './points.js';

// Loaded only by the bare runs: the collector does not load it, so our runs' RSS must not include it.
type Client = typeof import('@influxdata/influxdb-client');
const loadClient = (): Promise<Client> => import('@influxdata/influxdb-client');

export interface Target {
  kind: 'v1' | 'v2';
  url: string;
  total: number;
  batch: number;
  inFlight: number;
  /** gzip level of the v2 bodies (the sink's default 1); v1 bodies go uncompressed, as the v1 sink sends them. */
  gzipLevel: number;
}

/** The official client's Point for ours, typed by the schema as our encoder types it. */
function clientPoint(client: Client, p: Point): InstanceType<Client['Point']> {
  const point = new client.Point(p.measurement).timestamp(p.time / 1000);
  for (const key in p.tags) point.tag(key, p.tags[key]!);
  const fields = SCHEMA.get(p.measurement)!.fields;
  for (const key in p.fields) {
    const value = p.fields[key] as number;
    if (fields[key]!.type === 'integer') point.intField(key, value);
    else point.floatField(key, value);
  }
  return point;
}

/** Resolves `wait()` once fewer than `limit` units are outstanding. */
class Gate {
  private outstanding = 0;
  private waiters: Array<() => void> = [];
  constructor(private readonly limit: number) {}
  take(n = 1): void {
    this.outstanding += n;
  }
  give(n = 1): void {
    this.outstanding -= n;
    if (this.outstanding < this.limit) for (const w of this.waiters.splice(0)) w();
  }
  async wait(): Promise<void> {
    while (this.outstanding >= this.limit) await new Promise<void>((wake) => this.waiters.push(wake));
  }
}

export async function bareV2({ url, total, batch, inFlight }: Target): Promise<void> {
  const client = await loadClient();
  let answered = 0;
  let failed = 0;
  // Lines written but not answered: at most `inFlight` batches on the wire and one being filled.
  const gate = new Gate((inFlight + 1) * batch - 1);
  let allAnswered!: () => void;
  const done = new Promise<void>((resolve) => (allAnswered = resolve));
  const count = (lines: string[], ok: boolean) => {
    answered += lines.length;
    if (!ok) failed += lines.length;
    gate.give(lines.length);
    if (answered === total) allAnswered();
  };
  const writeApi = new client.InfluxDB({ url, token: 'x', timeout: 60_000 }).getWriteApi('org', 'bucket', 's', {
    batchSize: batch,
    maxRetries: 0, // a failure counts as answered (and fails the run) instead of retrying in the background
    writeSuccess: (lines) => count(lines, true),
    writeFailed: (_err, lines) => count(lines, false),
  });
  for (const chunk of writeCalls(total)) {
    for (const p of chunk) {
      await gate.wait();
      gate.take();
      writeApi.writePoint(clientPoint(client, p));
    }
  }
  await writeApi.close();
  await done;
  if (failed > 0) throw new Error(`bare WriteApi: ${failed} of ${total} lines failed`);
}

/** Attempts per request (or per write, for our sinks) before a run fails. */
export const RETRIES = 5;
/** Retried requests or writes of this run: reported with its figures. */
export const retried = { count: 0 };

/** POSTs bodies with at most `inFlight` requests on the wire; `next()` gives the next body or undefined at the end. */
async function postAll(
  t: Target,
  headers: Record<string, string>,
  next: () => Buffer | string | undefined,
): Promise<void> {
  const agent = new Agent({ connections: 8 });
  const path = t.kind === 'v2' ? '/api/v2/write?org=org&bucket=bucket&precision=s' : '/write?db=bench&precision=s';
  const worker = async () => {
    for (let body = next(); body !== undefined; body = next()) {
      const gzipped = typeof body !== 'string' && body[0] === 0x1f && body[1] === 0x8b;
      for (let attempt = 1; ; attempt++) {
        const res = await request(`${t.url}${path}`, {
          method: 'POST',
          body,
          headers: gzipped ? { ...headers, 'content-encoding': 'gzip' } : headers,
          dispatcher: agent,
        });
        const text = await res.body.text();
        if (res.statusCode < 300) break;
        // A loaded 1.x answers 500 {"error":"timeout"}: retried, as the official client and our collector retry.
        if (res.statusCode < 500 || attempt === RETRIES) throw new Error(`HTTP ${res.statusCode}: ${text}`);
        retried.count++;
      }
    }
  };
  await Promise.all(Array.from({ length: t.inFlight }, worker));
  await agent.close();
}

export async function bareV1(t: Target): Promise<void> {
  const client = await loadClient();
  const calls = writeCalls(t.total);
  let pending: Point[] = [];
  // Encoded as the requests go, one batch per free slot, as the client would.
  const next = (): string | undefined => {
    const lines: string[] = [];
    while (lines.length < t.batch) {
      if (pending.length === 0) {
        const call = calls.next();
        if (call.done) break;
        pending = call.value;
      }
      const take = pending.splice(0, t.batch - lines.length);
      for (const p of take) lines.push(clientPoint(client, p).toLineProtocol()!);
    }
    return lines.length > 0 ? lines.join('\n') : undefined;
  };
  await postAll(t, { 'content-type': 'text/plain; charset=utf-8' }, next);
}

/** The raw limit: bodies prepared before `start()` is called; only the POSTs are timed. */
export function prepareRaw(t: Target): { start: () => Promise<void> } {
  const encode = createEncoder('s', { schema: SCHEMA, backslashes: t.kind === 'v2' ? 'escaped' : 'verbatim' });
  const bodies: Buffer[] = [];
  let lines: string[] = [];
  const seal = () => {
    const body = Buffer.from(lines.join('\n'));
    const gzip = t.kind === 'v2' && t.gzipLevel > 0 && body.length >= DEFAULT_GZIP_MIN_BYTES;
    bodies.push(gzip ? gzipSync(body, { level: t.gzipLevel }) : body);
    lines = [];
  };
  for (const chunk of writeCalls(t.total)) {
    for (const p of chunk) {
      lines.push(encode(p)!);
      if (lines.length === t.batch) seal();
    }
  }
  if (lines.length > 0) seal();
  let i = 0;
  const headers = {
    'content-type': 'text/plain; charset=utf-8',
    ...(t.kind === 'v2' ? { authorization: 'Token x' } : {}),
  };
  return { start: () => postAll(t, headers, () => bodies[i++]) };
}
