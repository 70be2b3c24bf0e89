import { intervalClock, systemClock, type Clock } from '../../clock.js';
import { request } from '../../http/undici.js';
import { tagText, type Point } from '../../points.js';
import { floorTo } from '../../time.js';
import { VerifyReadError } from './errors.js';
import { addTo, type StoredReader, type StoredSum, type SumQuery } from './types.js';

/** Longest wait for a repair's samples to become readable. */
const SETTLE_MS = 15_000;

export interface VictoriaTarget {
  /** The server's base URL (the sink's url: VictoriaMetrics takes /api/v2/write on the same port). */
  url: string;
  /** Sent as a bearer token when set (vmauth and similar proxies); VictoriaMetrics itself ignores it. */
  token?: string | undefined;
  timeoutMs?: number;
  /**
   * What the wait for a repair's samples is measured on (tests). Callers keep the default, the system's: the server
   * flushes in real time, so a scaled or manual clock would cut the wait short or never end it.
   */
  clock?: Clock;
}

/** A label value inside a regex alternative of a series selector: regex metacharacters, then the quoting, escaped. */
function regexAlternative(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function selectorString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The series selector of one field: VictoriaMetrics names a line-protocol field `<measurement>_<field>` and keeps the
 * tags as labels.
 */
export function victoriaSelector(measurement: string, field: string, accounts: readonly string[]): string {
  return (
    `{__name__=${selectorString(`${measurement}_${field}`)},` +
    `account=~${selectorString(accounts.map(regexAlternative).join('|'))}}`
  );
}

interface ExportLine {
  metric: Record<string, string>;
  values: number[];
  timestamps: number[];
}

/**
 * VictoriaMetrics through `/api/v1/export`: the raw samples, summed here per account and window. Exact where
 * `sum_over_time` would depend on lookback and step alignment, and it sees every stored sample — a value written
 * twice at one time (VictoriaMetrics keeps both unless deduplication is configured) is counted twice, as a
 * dashboard's sum would.
 */
export function victoriaReader(target: VictoriaTarget): StoredReader {
  const headers: Record<string, string> = target.token ? { authorization: `Bearer ${target.token}` } : {};
  const clock = intervalClock(target.clock ?? systemClock);
  const exportField = async (q: SumQuery, field: string): Promise<ExportLine[]> => {
    const params = new URLSearchParams({
      'match[]': victoriaSelector(q.measurement, field, q.accounts),
      start: String(q.from / 1000),
      end: String((q.to - 1) / 1000),
    });
    try {
      const res = await request(new URL(`/api/v1/export?${params}`, target.url), {
        headers,
        headersTimeout: target.timeoutMs ?? 30_000,
        bodyTimeout: target.timeoutMs ?? 30_000,
      });
      const text = await res.body.text();
      if (res.statusCode >= 300)
        throw new VerifyReadError(
          `VictoriaMetrics /api/v1/export answered HTTP ${res.statusCode}: ${text.slice(0, 200)}`,
        );
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as ExportLine);
    } catch (err) {
      if (err instanceof VerifyReadError) throw err;
      throw new VerifyReadError(
        `VictoriaMetrics /api/v1/export of ${q.measurement}_${field} failed: ${(err as Error).message}`,
      );
    }
  };
  /** `(series, time)` of every stored sample of `measurement`_`field` for `accounts` in [from, to). */
  const storedSamples = async (
    measurement: string,
    field: string,
    accounts: string[],
    from: number,
    to: number,
  ): Promise<Set<string>> => {
    const q = { measurement, fields: [field], from, to, windowMs: to - from, accounts };
    const keys = new Set<string>();
    for (const line of await exportField(q, field)) {
      const { __name__: _name, ...labels } = line.metric;
      for (const t of line.timestamps) keys.add(sampleKey(labels, t));
    }
    return keys;
  };
  return {
    kind: 'victoriametrics',
    async unstored(points) {
      const byField = new Map<string, Set<string>>();
      const out: Point[] = [];
      for (const [measurement, group] of groupBy(points, (p) => p.measurement)) {
        const accounts = [...new Set(group.map((p) => p.tags.account ?? ''))];
        const from = Math.min(...group.map((p) => p.time));
        const to = Math.max(...group.map((p) => p.time)) + 1;
        for (const field of new Set(group.flatMap((p) => Object.keys(p.fields)))) {
          byField.set(`${measurement}\u0000${field}`, await storedSamples(measurement, field, accounts, from, to));
        }
        for (const p of group) {
          const labels = Object.fromEntries(Object.entries(p.tags).map(([k, v]) => [k, tagText(v)]));
          const fields = Object.fromEntries(
            Object.entries(p.fields).filter(
              ([f]) => !byField.get(`${measurement}\u0000${f}`)!.has(sampleKey(labels, p.time)),
            ),
          );
          if (Object.keys(fields).length > 0) out.push({ ...p, fields });
        }
      }
      return out;
    },
    async sums(q) {
      if (q.accounts.length === 0) return [];
      const into = new Map<string, StoredSum>();
      for (const field of q.fields) {
        for (const line of await exportField(q, field)) {
          const account = line.metric.account ?? '';
          line.timestamps.forEach((t, i) => {
            if (t < q.from || t >= q.to) return;
            addTo(into, account, floorTo(t, q.windowMs), field, line.values[i]!, field === q.fields[0]);
          });
        }
      }
      return [...into.values()];
    },
    async settle(written) {
      // Ingested rows become searchable once an in-memory buffer is flushed (about a second), and a series written
      // again after delete_series only once its new index entries are: ask for the flush, then wait until the samples
      // written are all found, for at most SETTLE_MS (the re-check then reports what it sees).
      const deadline = clock.now() + SETTLE_MS;
      for (;;) {
        await request(new URL('/internal/force_flush', target.url), { headers }).then(
          (r) => r.body.dump(),
          () => undefined,
        );
        if (written.length === 0 || (await this.unstored!(written)).length === 0 || clock.now() > deadline) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    async close() {},
  };
}

/** A sample's identity: its labels (sorted, as stored) and time. */
function sampleKey(labels: Record<string, string>, time: number): string {
  return `${JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}@${time}`;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}
