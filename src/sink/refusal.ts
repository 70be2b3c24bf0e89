/**
 * Lines the database refused for good (a 400/422 of a write), sorted by cause so that the operator is told what to fix:
 * a field whose type the database already holds differently, points older than the retention policy, or anything
 * else the server said. One home for recognising InfluxDB's answers (1.x and 2.x word them the same).
 */

export type RefusalCause = 'field-type-conflict' | 'beyond-retention' | 'other';

/** Refused lines of one write with one cause: how many, the server's words (first seen), and what fixes it. */
export interface Refusal {
  cause: RefusalCause;
  points: number;
  /** Measurements of the refused lines. */
  measurements: string[];
  /** The server's message (as answered; the dead-letter file has every one). */
  reason: string;
  /** What the operator can do, in one sentence. */
  fix: string;
}

const TYPE_CONFLICT =
  /field type conflict: input field "([^"]*)" on measurement "([^"]*)" is type (\w+), already exists as type (\w+)/;

/** The cause of a refusal from its status and the server's message. */
export function refusalCause(reason: string): RefusalCause {
  if (/field type conflict/i.test(reason)) return 'field-type-conflict';
  if (/beyond retention policy/i.test(reason)) return 'beyond-retention';
  return 'other';
}

/** One sentence naming the fix of a refusal, with the field and types when the server named them. */
export function refusalFix(reason: string): string {
  const cause = refusalCause(reason);
  if (cause === 'field-type-conflict') {
    const m = TYPE_CONFLICT.exec(reason);
    const which = m
      ? `${m[2]}.${m[1]} is stored as ${m[4]} (written earlier by another writer), the collector writes ${m[3]}`
      : 'a field is stored with another type';
    return (
      `${which}: the database keeps a field's first type per shard, so write to a new database or bucket, or drop ` +
      'the conflicting data (DROP MEASUREMENT, or delete the series); then replay the dead letters'
    );
  }
  if (cause === 'beyond-retention') {
    return (
      'the points are older than the retention policy of the target ' +
      "(InfluxDB 1.x: ALTER RETENTION POLICY … DURATION …; 2.x: the bucket's retention): " +
      'lengthen it, or collect/backfill no further back; then replay the dead letters'
    );
  }
  return 'the database refused the lines for good: see the reason and the dead-letter file';
}

/** Adds `points` refused lines of `measurements` for `reason` into `into` (one entry per cause). */
export function addRefusal(into: Refusal[], reason: string, points: number, measurements: Iterable<string>): void {
  const cause = refusalCause(reason);
  let entry = into.find((r) => r.cause === cause);
  if (!entry) {
    entry = { cause, points: 0, measurements: [], reason, fix: refusalFix(reason) };
    into.push(entry);
  }
  entry.points += points;
  for (const m of measurements) if (!entry.measurements.includes(m)) entry.measurements.push(m);
}

/** The refusals of several writes, one entry per cause. */
export function mergeRefusals(lists: ReadonlyArray<readonly Refusal[] | undefined>): Refusal[] {
  const out: Refusal[] = [];
  for (const list of lists) for (const r of list ?? []) addRefusal(out, r.reason, r.points, r.measurements);
  return out;
}

/** One line for a log or a CLI: `184 points refused (beyond-retention): <server's words>; fix: …`. */
export function describeRefusal(r: Refusal): string {
  return `${r.points} point${r.points === 1 ? '' : 's'} refused (${r.cause}): ${r.reason}; fix: ${r.fix}`;
}
