/** The DVR API's vocabulary (spec 000), read by the client, the `dvr` command and the simulator. */

/** Node identifier; `*` means every node. */
export const ALL_HOSTS = '*';

/**
 * Half-open intervals [from, to) in whole unix seconds: the arithmetic of DVR ranges, shared by the simulator (which
 * records and deletes) and the `dvr` command (which shows what a deletion would remove).
 */
export interface SecondsInterval {
  from: number;
  to: number;
}

/** Sorted, non-overlapping, non-empty intervals; touching ones are merged. */
export function normalize(intervals: readonly SecondsInterval[]): SecondsInterval[] {
  const sorted = intervals.filter((i) => i.to > i.from).sort((a, b) => a.from - b.from);
  const out: SecondsInterval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.from <= last.to) last.to = Math.max(last.to, i.to);
    else out.push({ ...i });
  }
  return out;
}

/** `intervals` minus `cut`: a cut inside an interval splits it; borders may lie outside any interval. */
export function subtract(intervals: readonly SecondsInterval[], cut: SecondsInterval): SecondsInterval[] {
  if (cut.to <= cut.from) return intervals.map((i) => ({ ...i }));
  const out: SecondsInterval[] = [];
  for (const i of intervals) {
    if (cut.to <= i.from || cut.from >= i.to) {
      out.push({ ...i });
      continue;
    }
    if (i.from < cut.from) out.push({ from: i.from, to: cut.from });
    if (cut.to < i.to) out.push({ from: cut.to, to: i.to });
  }
  return out;
}

export function subtractAll(
  intervals: readonly SecondsInterval[],
  cuts: readonly SecondsInterval[],
): SecondsInterval[] {
  return cuts.reduce<SecondsInterval[]>(
    (rest, cut) => subtract(rest, cut),
    intervals.map((i) => ({ ...i })),
  );
}

/** The parts of `intervals` inside `window`. */
export function intersect(intervals: readonly SecondsInterval[], window: SecondsInterval): SecondsInterval[] {
  const out: SecondsInterval[] = [];
  for (const i of intervals) {
    const from = Math.max(i.from, window.from);
    const to = Math.min(i.to, window.to);
    if (to > from) out.push({ from, to });
  }
  return out;
}

export function totalSeconds(intervals: readonly SecondsInterval[]): number {
  return intervals.reduce((sum, i) => sum + (i.to - i.from), 0);
}
