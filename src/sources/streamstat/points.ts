import { presentTags, type Point } from '../../points.js';
import type { StreamstatGrouping } from '../../spec/streamstat.js';
import { toMs } from '../../time.js';
import { VIEWS_MEASUREMENT } from './measurements.js';
import type { StreamstatElement, StreamstatGrouped, StreamstatTimes, StreamstatTimesGrouped, StreamstatTotal } from './schemas.js';

const KEY_TAGS = ['account', 'stream', 'stream_type', 'browser', 'platform'] as const;
const VALUE_FIELDS = ['views', 'users', 'views_max'] as const;

/** Filters of the call that become tags when the element has no key of that name (keeps filtered series apart). */
type CallTags = Partial<Record<(typeof KEY_TAGS)[number], string>>;

/** `/`: one point at the window start. `callTags`: filters of the call worth a tag (account, browser, platform). */
export function totalToPoints(body: StreamstatTotal, callTags: CallTags = {}): Point[] {
  return [point('total', body.start, { ...callTags, ...accountOf(body) }, body)];
}

/** `/<grouping>`: one point per element at the window start. */
export function groupedToPoints(grouping: StreamstatGrouping, body: StreamstatGrouped, callTags: CallTags = {}): Point[] {
  return elementPoints(grouping, body.start, { ...callTags, ...accountOf(body) }, body.result);
}

/** `/` with granularity: one point per bucket at the bucket start. */
export function timesToPoints(body: StreamstatTimes, callTags: CallTags = {}): Point[] {
  const tags = { ...callTags, ...accountOf(body) };
  return body.result.map((bucket) => point('total', bucket.start, tags, bucket));
}

/** `/<grouping>` with granularity: one point per bucket and element at the bucket start. */
export function timesGroupedToPoints(grouping: StreamstatGrouping, body: StreamstatTimesGrouped, callTags: CallTags = {}): Point[] {
  const tags = { ...callTags, ...accountOf(body) };
  return body.result.flatMap((bucket) => elementPoints(grouping, bucket.start, tags, bucket.result));
}

function elementPoints(grouping: StreamstatGrouping, start: string, callTags: CallTags, elements: StreamstatElement[]): Point[] {
  return elements.map((e) => {
    const keys = presentTags(Object.fromEntries(KEY_TAGS.map((key) => [key, e[key]])));
    return point(grouping, start, { ...callTags, ...keys }, e);
  });
}

function accountOf(body: { account?: string | null | undefined }): CallTags {
  return typeof body.account === 'string' ? { account: body.account } : {};
}

function point(grouping: string, start: string, tags: CallTags, values: Partial<Record<(typeof VALUE_FIELDS)[number], number>>): Point {
  // The schemas already checked that `start` parses.
  const time = toMs(start);
  const fields: Record<string, number> = {};
  for (const f of VALUE_FIELDS) if (values[f] !== undefined) fields[f] = values[f];
  return { measurement: VIEWS_MEASUREMENT, tags: { grouping, ...presentTags(tags) }, fields, time };
}
