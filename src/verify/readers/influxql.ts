import { request } from '../../http/undici.js';
import { VerifyReadError } from './errors.js';
import type { StoredReader, StoredSum, SumQuery } from './types.js';

export interface InfluxQlTarget {
  url: string;
  database: string;
  retentionPolicy?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  timeoutMs?: number;
}

/** An identifier in double quotes (InfluxQL escapes `"` and `\` inside). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A string literal in single quotes. */
export function quoteString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The InfluxQL of one SumQuery: sums per account and epoch-aligned window (GROUP BY time() aligns to the epoch, as
 * the provider's UTC days and hours), plus the count of the first field (the rounding bound of derived fields).
 */
export function buildInfluxQl(q: SumQuery, target: Pick<InfluxQlTarget, 'database' | 'retentionPolicy'>): string {
  const from = [target.database, target.retentionPolicy ?? '', q.measurement]
    .map((p, i) => (i === 1 && p === '' ? '' : quoteIdent(p)))
    .join('.');
  const sums = q.fields.map((f) => `sum(${quoteIdent(f)}) AS ${quoteIdent(f)}`);
  const accounts = q.accounts.map((a) => `${quoteIdent('account')} = ${quoteString(a)}`).join(' OR ');
  return (
    `SELECT ${[...sums, `count(${quoteIdent(q.fields[0]!)}) AS "__points"`].join(', ')} FROM ${from} ` +
    `WHERE time >= ${q.from}ms AND time < ${q.to}ms AND (${accounts}) ` +
    `GROUP BY time(${q.windowMs}ms), ${quoteIdent('account')} fill(none)`
  );
}

interface InfluxQlAnswer {
  error?: string;
  results?: Array<{
    error?: string;
    series?: Array<{ tags?: Record<string, string>; columns: string[]; values: unknown[][] }>;
  }>;
}

/** InfluxDB 1.x through `/query` (InfluxQL), credentials as basic auth so they never sit in a URL. */
export function influxQlReader(target: InfluxQlTarget): StoredReader {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (target.username !== undefined) {
    headers.authorization = `Basic ${Buffer.from(`${target.username}:${target.password ?? ''}`).toString('base64')}`;
  }
  return {
    kind: 'influxql',
    async sums(q) {
      if (q.accounts.length === 0) return [];
      const body = new URLSearchParams({ db: target.database, q: buildInfluxQl(q, target), epoch: 'ms' }).toString();
      let answer: InfluxQlAnswer;
      try {
        const res = await request(new URL('/query', target.url), {
          method: 'POST',
          headers,
          body,
          headersTimeout: target.timeoutMs ?? 30_000,
          bodyTimeout: target.timeoutMs ?? 30_000,
        });
        const text = await res.body.text();
        if (res.statusCode >= 300)
          throw new VerifyReadError(`InfluxDB /query answered HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
        answer = JSON.parse(text) as InfluxQlAnswer;
      } catch (err) {
        if (err instanceof VerifyReadError) throw err;
        throw new VerifyReadError(`InfluxDB /query failed: ${(err as Error).message}`);
      }
      const first = answer.results?.[0];
      const error = answer.error ?? first?.error;
      if (error) throw new VerifyReadError(`InfluxDB /query of ${q.measurement}: ${error}`);
      const rows: StoredSum[] = [];
      for (const s of first?.series ?? []) {
        const account = s.tags?.account ?? '';
        for (const row of s.values) {
          const col = (name: string) => row[s.columns.indexOf(name)];
          const values = Object.fromEntries(q.fields.map((f) => [f, Number(col(f) ?? 0)]));
          rows.push({ account, time: Number(col('time')), values, points: Number(col('__points') ?? 0) });
        }
      }
      return rows;
    },
    // InfluxDB answers a query with every point whose write it has confirmed.
    async settle() {},
    async close() {},
  };
}
