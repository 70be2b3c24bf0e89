import type { SecondsInterval } from '../../spec/dvr.js';
import type { KnownRecording } from '../../state/dvr-recordings.js';

/** A recording not listed for this long is forgotten (deleted, or gone past the DVR window). */
export const FORGET_RECORDING_AFTER_SEC = 6 * 3600;
/** At most this many recordings are remembered per series (the most recently seen). */
export const MAX_RECORDINGS_PER_SERIES = 1000;

export interface IdentifiedRange extends SecondsInterval {
  /** The recording's first-seen start: the stable time of its point. */
  id: number;
}

/**
 * Gives each range of a snapshot the identity of the recording it continues. A DVR window cuts a recording from its
 * start and an alive stream grows it at its end, so a range of a new snapshot overlaps what the previous one listed
 * of the same recording: that recording (the earliest one overlapping, each claimed once) lends its identity. A range
 * that continues none is a new recording, identified by its start. Recordings not listed are remembered for a while
 * (a snapshot that misses a node must not renumber its recordings), then forgotten.
 */
export function identifyRanges(
  known: readonly KnownRecording[],
  ranges: readonly SecondsInterval[],
  seenAt: number,
): { ranges: IdentifiedRange[]; known: KnownRecording[] } {
  const unclaimed = [...known].sort((a, b) => a.from - b.from);
  const used = new Set(known.map((r) => r.id));
  const identified = [...ranges]
    .sort((a, b) => a.from - b.from)
    .map((range): IdentifiedRange => {
      const at = unclaimed.findIndex((r) => r.from < range.to && range.from < r.to);
      if (at >= 0) return { ...range, id: unclaimed.splice(at, 1)[0]!.id };
      let id = range.from;
      while (used.has(id)) id++; // never two recordings on one time of the series
      used.add(id);
      return { ...range, id };
    });
  const listed = identified.map((r): KnownRecording => ({ id: r.id, from: r.from, to: r.to, seenAt }));
  const remembered = unclaimed
    .filter((r) => seenAt - r.seenAt <= FORGET_RECORDING_AFTER_SEC)
    .sort((a, b) => b.seenAt - a.seenAt)
    .slice(0, Math.max(0, MAX_RECORDINGS_PER_SERIES - listed.length));
  return { ranges: identified, known: [...listed, ...remembered] };
}
