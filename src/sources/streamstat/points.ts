import { presentTags, type Point } from '../../points.js';
import type { StreamstatGrouping } from '../../spec/streamstat.js';
import { toMs } from '../../time.js';
import { fieldsOf, measurementOf, STORED_FIELD, VIEWS_SERIES, type ViewsSeries } from './measurements.js';
import type {
  StreamstatElement,
  StreamstatGrouped,
  StreamstatTimes,
  StreamstatTimesGrouped,
  StreamstatTotal,
} from './schemas.js';

const KEY_TAGS = ['account', 'stream', 'stream_type', 'browser', 'platform'] as const;

/** Filters of the call that become tags when the element has no key of that name (keeps filtered series apart). */
type CallTags = Partial<Record<(typeof KEY_TAGS)[number], string>>;

/**
 * Each function maps one answer to the points of `series` (measurements.ts): views and peaks, or the unique users of
 * the period the call asked. Only that series' fields are kept, whatever else the service sent.
 */

/** `/`: one point at the window start. `callTags`: filters of the call worth a tag (account, browser, platform). */
export function totalToPoints(
  body: StreamstatTotal,
  callTags: CallTags = {},
  series: ViewsSeries = VIEWS_SERIES,
): Point[] {
  return [point(series, 'total', body.start, { ...callTags, ...accountOf(body) }, body)];
}

/** `/<grouping>`: one point per element at the window start. */
export function groupedToPoints(
  grouping: StreamstatGrouping,
  body: StreamstatGrouped,
  callTags: CallTags = {},
  series: ViewsSeries = VIEWS_SERIES,
): Point[] {
  return elementPoints(series, grouping, body.start, { ...callTags, ...accountOf(body) }, body.result);
}

/** `/` with granularity: one point per bucket at the bucket start. */
export function timesToPoints(
  body: StreamstatTimes,
  callTags: CallTags = {},
  series: ViewsSeries = VIEWS_SERIES,
): Point[] {
  const tags = { ...callTags, ...accountOf(body) };
  return body.result.map((bucket) => point(series, 'total', bucket.start, tags, bucket));
}

/** `/<grouping>` with granularity: one point per bucket and element at the bucket start. */
export function timesGroupedToPoints(
  grouping: StreamstatGrouping,
  body: StreamstatTimesGrouped,
  callTags: CallTags = {},
  series: ViewsSeries = VIEWS_SERIES,
): Point[] {
  const tags = { ...callTags, ...accountOf(body) };
  return body.result.flatMap((bucket) => elementPoints(series, grouping, bucket.start, tags, bucket.result));
}

function elementPoints(
  series: ViewsSeries,
  grouping: StreamstatGrouping,
  start: string,
  callTags: CallTags,
  elements: StreamstatElement[],
): Point[] {
  return elements.map((e) => {
    const keys = presentTags(Object.fromEntries(KEY_TAGS.map((key) => [key, e[key]])));
    return point(series, grouping, start, { ...callTags, ...keys }, e);
  });
}

function accountOf(body: { account?: string | null | undefined }): CallTags {
  return typeof body.account === 'string' ? { account: body.account } : {};
}

function point(
  series: ViewsSeries,
  grouping: 'total' | StreamstatGrouping,
  start: string,
  tags: CallTags,
  values: StreamstatTotal | StreamstatElement,
): Point {
  // The schemas already checked that `start` parses.
  const time = toMs(start);
  const fields: Record<string, number> = {};
  for (const f of fieldsOf(series)) if (values[f] !== undefined) fields[STORED_FIELD[f]] = values[f];
  return { measurement: measurementOf(series, grouping), tags: presentTags(tags), fields, time };
}
