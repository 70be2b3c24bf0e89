import type { IncomingHttpHeaders } from 'node:http';
import {
  isStreamstatGranularity,
  STREAM_TYPES,
  STREAMSTAT_FIELDS,
  STREAMSTAT_GROUPINGS,
  type StreamstatField,
  type StreamstatGranularity,
  type StreamstatGrouping,
  type StreamstatLanguage,
} from '../../spec/streamstat.js';
import type { ViewFilters } from '../model/views.js';
import { SimReject } from '../model/error-body.js';
import type { SimSettings } from '../model/context.js';

/** A stream view statistics request the simulator accepted, in the simulator's terms. */
export interface StreamstatRequest {
  endpoint: 'total' | StreamstatGrouping;
  start: number;
  end: number;
  account: string | undefined;
  streams: string[];
  streamTypes: string[];
  filters: ViewFilters;
  fields: StreamstatField[];
  sort: { raw: string; field: StreamstatField; descending: boolean } | undefined;
  offset: number;
  /** As sent (echoed); the page size is `limit ?? settings.defaultLimit`. */
  limit: number | undefined;
  granularity: StreamstatGranularity | undefined;
}

/** Rejection with the text of table B's "Data" column (or the details of a 422). */
export class StreamstatReject extends SimReject {}

const VALIDATION_FAIL = 'validation fail';
const SINGLE_PARAMS = [
  'language',
  'cdnauthtoken',
  'start',
  'end',
  'account',
  'country',
  'region',
  'browser',
  'platform',
  'fields',
  'granularity',
];
const REPEATABLE_PARAMS = ['stream', 'stream_type'];
const GROUPING_ONLY_PARAMS = ['sort', 'offset', 'limit'];
/** Spec B: UTC with zero seconds, with or without the trailing Z; an offset is not UTC, so it fails validation. */
const UTC_MINUTE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z?$/;

export function parsePath(path: string): StreamstatRequest['endpoint'] | undefined {
  if (path === '/' || path === '') return 'total';
  const name = path.slice(1);
  return (STREAMSTAT_GROUPINGS as readonly string[]).includes(name) ? (name as StreamstatGrouping) : undefined;
}

/** Spec B: `language` first, then the Accept-Language header, otherwise English. */
export function pickLanguage(
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
): StreamstatLanguage | StreamstatReject {
  const param = query.get('language');
  if (param !== null)
    return param === 'en' || param === 'ru' ? param : new StreamstatReject(422, 'language: must be ru or en');
  const header = headers['accept-language'] ?? '';
  // The first listed tag we speak wins; q-weights are not ranked (clients list the preferred tag first).
  for (const tag of header.split(',')) {
    const primary = tag.trim().slice(0, 2).toLowerCase();
    if (primary === 'en' || primary === 'ru') return primary;
  }
  return 'en';
}

/**
 * Checks a request in the order a typical service does: shape of the query (unknown or repeated parameters,
 * syntax of each value) → 400 `validation fail`; a numeric parameter set incorrectly → 422 with details;
 * then the rules with their own messages (sort vs fields, start < end, granularity).
 */
export function parseStreamstatQuery(
  endpoint: StreamstatRequest['endpoint'],
  query: URLSearchParams,
  settings: SimSettings,
): StreamstatRequest | StreamstatReject {
  const allowed =
    endpoint === 'total'
      ? [...SINGLE_PARAMS, ...REPEATABLE_PARAMS]
      : [...SINGLE_PARAMS, ...REPEATABLE_PARAMS, ...GROUPING_ONLY_PARAMS];
  for (const key of new Set(query.keys())) {
    if (!allowed.includes(key)) return invalid();
    if (!REPEATABLE_PARAMS.includes(key) && query.getAll(key).length > 1) return invalid();
  }
  const one = (key: string): string | undefined => query.get(key) ?? undefined;
  const start = parseUtcMinute(one('start'));
  const end = parseUtcMinute(one('end'));
  if (start === undefined || end === undefined) return invalid();
  const streamTypes = query.getAll('stream_type');
  if (streamTypes.some((t) => !(STREAM_TYPES as readonly string[]).includes(t))) return invalid();
  const streams = query.getAll('stream');
  const account = one('account');
  if (streams.length > 0 && account === undefined) return invalid();
  if (one('region') !== undefined && one('country') === undefined) return invalid();
  if (one('offset') !== undefined && one('limit') === undefined) return invalid();
  const limit = parseCount(one('limit'), 1, settings.maxLimit, 'limit');
  if (limit instanceof StreamstatReject) return limit;
  const offset = parseCount(one('offset'), 0, Number.MAX_SAFE_INTEGER, 'offset');
  if (offset instanceof StreamstatReject) return offset;
  const fields = parseFields(one('fields'));
  if (!fields) return invalid();
  const sort = parseSort(one('sort'));
  if (sort === null) return invalid();
  if (sort && !fields.includes(sort.field as StreamstatField))
    return new StreamstatReject(400, 'sort argument not in fields');
  if (start >= end) return new StreamstatReject(400, 'start must be less then end');
  const granularity = one('granularity');
  if (granularity !== undefined && !isStreamstatGranularity(granularity))
    return new StreamstatReject(400, 'granularity is not correct');
  return {
    endpoint,
    start,
    end,
    account,
    streams,
    streamTypes,
    filters: { country: one('country'), region: one('region'), browser: one('browser'), platform: one('platform') },
    fields,
    sort: sort as StreamstatRequest['sort'],
    offset: offset ?? 0,
    limit,
    granularity,
  };
}

function invalid(): StreamstatReject {
  return new StreamstatReject(400, VALIDATION_FAIL);
}

function parseUtcMinute(text: string | undefined): number | undefined {
  const m = text === undefined ? null : UTC_MINUTE.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (second !== 0) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute);
  const d = new Date(ms);
  // Date.UTC rolls 2026-02-30 over into March; a real calendar date must survive the round trip.
  const exists =
    d.getUTCMonth() === month - 1 && d.getUTCDate() === day && d.getUTCHours() === hour && d.getUTCMinutes() === minute;
  return exists ? ms : undefined;
}

/** Fields default to all three when omitted (not shown in the spec; the likeliest default). */
function parseFields(text: string | undefined): StreamstatField[] | undefined {
  if (text === undefined) return [...STREAMSTAT_FIELDS];
  const names = text.split(',').map((f) => f.trim());
  if (names.some((f) => !(STREAMSTAT_FIELDS as readonly string[]).includes(f))) return undefined;
  return [...new Set(names)] as StreamstatField[];
}

/** undefined: no sort; null: not of the form [+-]field. The field itself is checked against `fields` later. */
function parseSort(text: string | undefined): { raw: string; field: string; descending: boolean } | undefined | null {
  if (text === undefined) return undefined;
  // A `+` sent unencoded arrives as a space; accept it as the ascending sign like most services do.
  const m = /^([+\- ]?)([a-z_]+)$/.exec(text);
  return m ? { raw: text, field: m[2]!, descending: m[1] === '-' } : null;
}

function parseCount(
  text: string | undefined,
  min: number,
  max: number,
  name: string,
): number | undefined | StreamstatReject {
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    return new StreamstatReject(
      422,
      `${name}: must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}, got "${text}"`,
    );
  }
  return n;
}
