import type { Point } from '../../points.js';
import { DVR_MEASUREMENT, DVR_RANGE_MEASUREMENT } from './measurements.js';
import type { DvrGetResponse, DvrRecord } from './schemas.js';

/**
 * Maps one GET response to points: a `cdn_dvr` snapshot per node at `snapshotMs`, and a `cdn_dvr_range` per recorded
 * period at its start, so reading the same range again overwrites the same point (with its grown duration).
 */
export function dvrToPoints(account: string, body: DvrGetResponse, snapshotMs: number): Point[] {
  return body.data.flatMap((record) => {
    // Empty values stay empty: the sink writes the placeholder (see tagText).
    const tags = { account, stream: record.stream_name || body.stream_name, host: record.host };
    return [snapshotPoint(record, tags, snapshotMs), ...rangePoints(record, tags)];
  });
}

function snapshotPoint(record: DvrRecord, tags: Record<string, string>, snapshotMs: number): Point {
  const { dvr } = record;
  const fields: Point['fields'] = {
    is_alive: record.is_alive,
    enabled: dvr.enabled,
    window: Math.round(dvr.window),
    duration: Math.round(dvr.duration),
    ranges: dvr.ranges.length,
  };
  // With nothing recorded, `from` (0, null or absent) names no moment; leave the field out instead of writing 1970.
  if (dvr.ranges.length > 0 && typeof dvr.from === 'number') fields.from = dvr.from;
  return { measurement: DVR_MEASUREMENT, tags, fields, time: snapshotMs };
}

function rangePoints(record: DvrRecord, tags: Record<string, string>): Point[] {
  return record.dvr.ranges.map((range) => ({
    measurement: DVR_RANGE_MEASUREMENT,
    tags: { ...tags },
    fields: { duration: Math.round(range.duration), end: Math.round(range.from + range.duration) },
    time: range.from * 1000,
  }));
}
