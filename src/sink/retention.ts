/**
 * How far back the target keeps points: InfluxDB refuses a point older than its retention ("points beyond retention
 * policy"), so a backfill reaching further back is told before it starts. 1.x: `SHOW RETENTION POLICIES` through
 * /query; 2.x: the bucket's `retentionRules` from /api/v2/buckets. Credentials go in headers, never in a URL.
 */
import { request } from '../http/undici.js';
import { serverMessage } from './http-outcome.js';
import { influxV1Transport } from './influx-v1.js';
import { influxV2Transport } from './influx-v2.js';
import { victoriaTransport } from './victoria.js';

export interface Retention {
  /** The policy or bucket it was read from, e.g. `retention policy "autogen" of database "cdn"`. */
  target: string;
  /** How long points are kept; undefined: forever. */
  durationMs: number | undefined;
}

/** The sink settings a lookup needs (the config's sink section satisfies it). */
export type RetentionTarget =
  | {
      type: 'influx-v1';
      url: string;
      database: string;
      retentionPolicy?: string | undefined;
      username?: string | undefined;
      password?: string | undefined;
    }
  | { type: 'influx-v2'; url: string; token: string; org: string; bucket: string }
  | { type: 'victoriametrics'; url: string; token?: string | undefined }
  | { type: 'file' };

const LOOKUP_TIMEOUT_MS = 10_000;

/** The target's retention; undefined for a file. Throws an Error with a one-line message when it cannot be read. */
export async function readRetention(sink: RetentionTarget): Promise<Retention | undefined> {
  if (sink.type === 'influx-v1') return readV1(sink);
  if (sink.type === 'influx-v2') return readV2(sink);
  if (sink.type === 'victoriametrics') return readVictoria(sink);
  return undefined;
}

interface ShowPoliciesAnswer {
  error?: string;
  results?: Array<{ error?: string; series?: Array<{ columns: string[]; values: unknown[][] }> }>;
}

async function readV1(sink: Extract<RetentionTarget, { type: 'influx-v1' }>): Promise<Retention> {
  const headers = authorization(influxV1Transport(sink).headers);
  const q = `SHOW RETENTION POLICIES ON "${sink.database.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const answer = (await getJson(sink.url, `/query?${new URLSearchParams({ q })}`, headers)) as ShowPoliciesAnswer;
  const result = answer.results?.[0];
  const error = answer.error ?? result?.error;
  if (error) throw new Error(`SHOW RETENTION POLICIES: ${error}`);
  const series = result?.series?.[0];
  const rows = (series?.values ?? []).map((row) => Object.fromEntries(series!.columns.map((c, i) => [c, row[i]])));
  const policy = rows.find((r) => (sink.retentionPolicy ? r.name === sink.retentionPolicy : r.default === true));
  if (!policy)
    throw new Error(
      `database "${sink.database}" has no retention policy ` +
        `${sink.retentionPolicy ? `"${sink.retentionPolicy}"` : 'marked default'}`,
    );
  const durationMs = goDurationMs(String(policy.duration));
  return {
    target: `retention policy "${String(policy.name)}" of database "${sink.database}"`,
    durationMs: durationMs || undefined,
  };
}

interface BucketsAnswer {
  buckets?: Array<{ name?: string; retentionRules?: Array<{ type?: string; everySeconds?: number }> }>;
}

async function readV2(sink: Extract<RetentionTarget, { type: 'influx-v2' }>): Promise<Retention> {
  const query = new URLSearchParams({ name: sink.bucket, org: sink.org });
  const answer = (await getJson(
    sink.url,
    `/api/v2/buckets?${query}`,
    authorization(influxV2Transport(sink).headers),
  )) as BucketsAnswer;
  const bucket = answer.buckets?.find((b) => b.name === sink.bucket);
  if (!bucket) throw new Error(`bucket "${sink.bucket}" not found in org "${sink.org}"`);
  const seconds = (bucket.retentionRules ?? []).find((r) => r.type === 'expire')?.everySeconds;
  return { target: `bucket "${sink.bucket}"`, durationMs: seconds ? seconds * 1000 : undefined };
}

/** VictoriaMetrics' `-retentionPeriod`, from its `/flags` page (`-retentionPeriod="1"`: a bare number is months). */
async function readVictoria(sink: Extract<RetentionTarget, { type: 'victoriametrics' }>): Promise<Retention> {
  const text = await getText(sink.url, '/flags', authorization(victoriaTransport(sink).headers));
  const value = /^-retentionPeriod="?([^"\s]*)"?\s*$/m.exec(text)?.[1];
  if (value === undefined) throw new Error('GET /flags: no -retentionPeriod (not a VictoriaMetrics single node?)');
  const durationMs = victoriaPeriodMs(value);
  if (durationMs === undefined) throw new Error(`GET /flags: -retentionPeriod "${value}" is not a period`);
  return { target: `VictoriaMetrics -retentionPeriod (${value})`, durationMs };
}

/** A VictoriaMetrics period: a number of months, or with a unit (h, d, w, y; `m` is minutes there, not months). */
export function victoriaPeriodMs(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)?$/.exec(text.trim());
  if (!m) return undefined;
  const units: Record<string, number> = {
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
    d: 86_400_000,
    w: 7 * 86_400_000,
    y: 365 * 86_400_000,
  };
  return Number(m[1]) * (m[2] === undefined ? 31 * 86_400_000 : units[m[2]]!);
}

/** The write requests' credentials, for a read of the same server. */
function authorization(headers: Record<string, string>): Record<string, string> {
  return headers.authorization === undefined ? {} : { authorization: headers.authorization };
}

async function getJson(base: string, path: string, headers: Record<string, string>): Promise<unknown> {
  const text = await getText(base, path, headers);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`GET ${path.split('?')[0]}: answer is not JSON`);
  }
}

async function getText(base: string, path: string, headers: Record<string, string>): Promise<string> {
  const what = `GET ${path.split('?')[0]}`;
  let status: number;
  let text: string;
  try {
    const res = await request(`${base.replace(/\/+$/, '')}${path}`, {
      method: 'GET',
      headers,
      signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
      headersTimeout: LOOKUP_TIMEOUT_MS,
      bodyTimeout: LOOKUP_TIMEOUT_MS,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    throw new Error(`${what} failed: ${(err as { code?: string }).code ?? (err as Error).name}`);
  }
  if (status < 200 || status >= 300) throw new Error(`${what} → HTTP ${status}: ${serverMessage(text).slice(0, 200)}`);
  return text;
}

/** A Go duration as InfluxDB prints it (`1h0m0s`, `168h0m0s`, `0s`) in milliseconds. */
export function goDurationMs(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 1e-6 };
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)) total += Number(n) * units[unit!]!;
  return total;
}

/**
 * The warning a backfill prints before it starts when `from` is older than the target keeps, or undefined. `now`:
 * when the points are written (InfluxDB compares a point's time with its own clock).
 */
export function retentionWarning(retention: Retention | undefined, from: number, now: number): string | undefined {
  if (!retention?.durationMs || from >= now - retention.durationMs) return undefined;
  const keptFrom = new Date(now - retention.durationMs).toISOString();
  return (
    `the range starts before what the ${retention.target} keeps (${formatHours(retention.durationMs)}): points older ` +
    `than ${keptFrom} will be refused ("points beyond retention policy") and dead-lettered; ` +
    `lengthen the retention, or backfill from ${keptFrom}`
  );
}

function formatHours(ms: number): string {
  const hours = ms / 3_600_000;
  return hours >= 48 && Number.isInteger(hours / 24) ? `${hours / 24} d` : `${+hours.toFixed(2)} h`;
}
