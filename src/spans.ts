import { ParameterError } from './errors.js';

/** Half-open time span [from, to) in epoch ms: the one span type of checkpoints, plans and jobs. */
export interface Span {
  from: number;
  to: number;
}

/** Throws a ParameterError naming `parameter` unless the span is a non-empty span of integer milliseconds. */
export function assertSpan(span: Span, parameter = 'span'): void {
  if (!Number.isSafeInteger(span.from) || !Number.isSafeInteger(span.to)) {
    throw new ParameterError(
      parameter,
      `from and to must be integer epoch milliseconds (got ${span.from}, ${span.to})`,
    );
  }
  if (span.from >= span.to) {
    throw new ParameterError(parameter, `from must be before to (got ${span.from} ≥ ${span.to})`);
  }
}

/**
 * Adds `span` to a sorted list of disjoint, non-touching spans and returns the new list (the input is not modified).
 * Touching or overlapping spans fuse, so confirmations in any order converge to the same minimal list.
 */
export function mergeSpan(spans: readonly Span[], span: Span): Span[] {
  const out: Span[] = [];
  let current: Span = { from: span.from, to: span.to };
  let placed = false;
  for (const s of spans) {
    if (s.to < current.from) {
      out.push(s);
    } else if (s.from > current.to) {
      if (!placed) out.push(current);
      placed = true;
      out.push(s);
    } else {
      current = { from: Math.min(s.from, current.from), to: Math.max(s.to, current.to) };
    }
  }
  if (!placed) out.push(current);
  return out;
}

/** The parts of [from, to) that no span covers, in order. */
export function subtractSpans(spans: readonly Span[], from: number, to: number): Span[] {
  const gaps: Span[] = [];
  let cursor = from;
  for (const s of spans) {
    if (s.to <= cursor) continue;
    if (s.from >= to) break;
    if (s.from > cursor) gaps.push({ from: cursor, to: s.from });
    cursor = Math.max(cursor, s.to);
    if (cursor >= to) break;
  }
  if (cursor < to) gaps.push({ from: cursor, to });
  return gaps;
}

/** Drops everything before `before`; a span that straddles it is cut at `before`. */
export function dropBefore(spans: readonly Span[], before: number): Span[] {
  return spans.filter((s) => s.to > before).map((s) => (s.from < before ? { from: before, to: s.to } : s));
}

/**
 * Moves a watermark forward through the span that contains or touches it. With no watermark yet, the first span's end
 * is the end of the contiguous confirmed prefix. Never returns a value below `mark`.
 */
export function advanceWatermark(spans: readonly Span[], mark: number | undefined): number | undefined {
  if (mark === undefined) return spans[0]?.to;
  const run = spans.find((s) => s.from <= mark && mark < s.to);
  return run ? run.to : mark;
}
