import type { Point } from '../../points.js';
import { DvrRecordingStore } from '../../state/dvr-recordings.js';
import { DVR_MEASUREMENT, DVR_RANGE_MEASUREMENT } from './measurements.js';
import { identifyRanges, type IdentifiedRange } from './recordings.js';
import type { DvrGetResponse, DvrRecord } from './schemas.js';

export interface DvrPointOptions {
  /**
   * Where recordings keep their identity across snapshots, ready (`await ready()`); default: a fresh memory, so each
   * recording is identified by its start now.
   */
  recordings?: DvrRecordingStore;
  /** False where the database does not overwrite a point (output.overwrites): `cdn_dvr_range` is rewritten each
   * snapshot. */
  ranges?: boolean;
}

/**
 * Maps one GET response to points: a `cdn_dvr` snapshot per node at `snapshotMs`, and a `cdn_dvr_range` per
 * recording at its stable identity (its first-seen start), so each snapshot overwrites the recording's one row with
 * its current extent and `seen_at`. Remembers the recordings in `options.recordings` (the caller saves them).
 */
export function dvrToPoints(
  account: string,
  body: DvrGetResponse,
  snapshotMs: number,
  options: DvrPointOptions = {},
): Point[] {
  const recordings = options.recordings ?? new DvrRecordingStore();
  const seenAt = Math.floor(snapshotMs / 1000);
  return body.data.flatMap((record) => {
    // Empty values stay empty: the sink writes the placeholder (see tagText).
    const tags = { account, stream: record.stream_name || body.stream_name, host: record.host };
    const snapshot = snapshotPoint(record, tags, snapshotMs);
    if (options.ranges === false) return [snapshot];
    const series = JSON.stringify([tags.account, tags.stream, tags.host]);
    const listed = record.dvr.ranges.map((r) => ({ from: r.from, to: r.from + Math.round(r.duration) }));
    const identified = identifyRanges(recordings.known(series), listed, seenAt);
    recordings.remember(series, identified.known, seenAt);
    return [snapshot, ...rangePoints(identified.ranges, tags, seenAt)];
  });
}

function snapshotPoint(record: DvrRecord, tags: Record<string, string>, snapshotMs: number): Point {
  const { dvr } = record;
  const fields: Point['fields'] = {
    is_alive: record.is_alive,
    enabled: dvr.enabled,
    window: Math.round(dvr.window),
    recorded_seconds: Math.round(dvr.duration),
    ranges: dvr.ranges.length,
  };
  // With nothing recorded, `from` (0, null or absent) names no moment; leave the field out instead of writing 1970.
  if (dvr.ranges.length > 0 && typeof dvr.from === 'number') fields.first_recorded_at = dvr.from;
  return { measurement: DVR_MEASUREMENT, tags, fields, time: snapshotMs };
}

function rangePoints(ranges: readonly IdentifiedRange[], tags: Record<string, string>, seenAt: number): Point[] {
  return ranges.map((range) => ({
    measurement: DVR_RANGE_MEASUREMENT,
    tags: { ...tags },
    fields: { starts_at: range.from, ends_at: range.to, length_seconds: range.to - range.from, seen_at: seenAt },
    time: range.id * 1000,
  }));
}
