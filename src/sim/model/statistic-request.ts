import type { IncomingHttpHeaders } from 'node:http';
import { DateTime, IANAZone } from 'luxon';
import { bucketSpans, parseGranularity, type Granularity } from '../../spec/granularity.js';
import {
  FILTER_NAMES,
  GROUPING_KEYS,
  GROUPING_RULES,
  STATISTIC_FIELDS,
  STATISTIC_GROUPINGS,
  STATISTIC_SERVICES,
  type FilterName,
  type StatisticEndpoint,
  type StatisticField,
  type StatisticGrouping,
} from '../../spec/statistic.js';
import { MINUTE } from '../../time.js';
import { SimReject } from './error-body.js';
import type { SimSettings } from './context.js';
import type { Language } from './statistic-dimensions.js';

/** A traffic statistics request the simulator accepted. */
export interface StatisticRequest {
  endpoint: StatisticEndpoint;
  start: number;
  end: number;
  /** Filters as sent (strings), in FILTER_NAMES order. */
  filters: Partial<Record<FilterName, string>>;
  fields: StatisticField[];
  sort: { raw: string; key: string; descending: boolean } | undefined;
  offset: number;
  /** As sent, or settings.defaultLimit. */
  limit: number;
  limitSent: boolean;
  granularity: Granularity | undefined;
  timeZone: string;
}

/** A 400 with the text of table A's "Data" column. */
export class StatisticReject extends SimReject {
  constructor(text: string) {
    super(400, text);
  }
}

/** Times as the spec shows them: minute precision, `:00` seconds, optional `Z` or `±hh:mm` (a `+` must be %2B). */
const MINUTE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00(Z|[+-]\d{2}:\d{2})?$/;
/** More buckets than this in one answer are refused as `granularity is not correct` (a real limit is not shown). */
const MAX_BUCKETS = 50_000;

export function parseEndpoint(path: string): StatisticEndpoint | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  const times = parts[0] === 'times';
  const rest = times ? parts.slice(1) : parts;
  if (rest.length > 1) return undefined;
  const name = rest[0];
  if (name === undefined) return { grouping: undefined, times };
  return (STATISTIC_GROUPINGS as readonly string[]).includes(name)
    ? { grouping: name as StatisticGrouping, times }
    : undefined;
}

/** Spec A: `language` first, then Accept-Language (first tag we speak), otherwise English. */
export function pickLanguage(query: URLSearchParams, headers: IncomingHttpHeaders): Language | StatisticReject {
  const param = query.get('language');
  if (param !== null) {
    const primary = param.slice(0, 2).toLowerCase();
    return primary === 'en' || primary === 'ru' ? primary : new StatisticReject('invalid value: language');
  }
  for (const tag of (headers['accept-language'] ?? '').split(',')) {
    const primary = tag.trim().slice(0, 2).toLowerCase();
    if (primary === 'en' || primary === 'ru') return primary;
  }
  return 'en';
}

/** Parameters the endpoint accepts (spec A1/A2); anything else is an unknown parameter. */
function allowedParameters(e: StatisticEndpoint): Set<string> {
  const forbidden = e.grouping ? GROUPING_RULES[e.grouping].forbids : [];
  const allowed = new Set<string>([
    'language',
    'cdnauthtoken',
    'start',
    'end',
    'fields',
    ...FILTER_NAMES.filter((f) => !forbidden.includes(f)),
  ]);
  if (e.times) ['granularity', 'timezone'].forEach((p) => allowed.add(p));
  if (e.grouping) allowed.add('sort');
  if (e.grouping || e.times) ['offset', 'limit'].forEach((p) => allowed.add(p));
  return allowed;
}

/**
 * Checks in the order a typical service does: unknown or repeated parameters, required keys, each value's syntax,
 * then start < end and the granularity. The texts are table A's (not shown beyond it: the parameter is appended).
 */
export function parseStatisticQuery(
  e: StatisticEndpoint,
  query: URLSearchParams,
  settings: SimSettings,
): StatisticRequest | StatisticReject {
  const allowed = allowedParameters(e);
  for (const key of new Set(query.keys())) {
    if (!allowed.has(key)) return new StatisticReject(`unknown parameter: ${key}`);
    if (query.getAll(key).length > 1) return invalid(key);
  }
  const one = (key: string): string | undefined => query.get(key) ?? undefined;
  // The spec's 400 text for a missing parameter, the path's own (account of /hosts) as much as the common ones.
  const required = [
    'start',
    'end',
    ...(e.times ? ['granularity'] : []),
    ...(e.grouping ? GROUPING_RULES[e.grouping].requires : []),
  ];
  for (const key of required) if (one(key) === undefined) return new StatisticReject(`required key: ${key}`);
  const timeZone = one('timezone') ?? 'UTC';
  if (!IANAZone.isValidZone(timeZone)) return invalid('timezone');
  const start = parseTime(one('start')!, timeZone);
  if (start === undefined) return invalid('start');
  const end = parseTime(one('end')!, timeZone);
  if (end === undefined) return invalid('end');
  const filters: StatisticRequest['filters'] = {};
  for (const key of FILTER_NAMES) {
    const value = one(key);
    if (value === undefined) continue;
    if (value === '') return invalid(key);
    filters[key] = value;
  }
  if (filters.service !== undefined && !(STATISTIC_SERVICES as readonly string[]).includes(filters.service))
    return invalid('service');
  if (filters.code !== undefined && !/^\d{3}$/.test(filters.code)) return invalid('code');
  const offset = parseCount(one('offset'), 0, Number.MAX_SAFE_INTEGER);
  if (offset === null) return invalid('offset');
  const limit = parseCount(one('limit'), 1, settings.maxLimit);
  if (limit === null) return invalid('limit');
  const fields = parseFields(one('fields'));
  if (!fields) return invalid('fields');
  const sort = parseSort(one('sort'), e.grouping);
  if (sort === null) return invalid('sort');
  if (start >= end) return new StatisticReject('start must be less then end');
  const granularity = e.times ? parseGranularity(one('granularity')!) : undefined;
  if (e.times && !acceptableGranularity(granularity, start, end, timeZone))
    return new StatisticReject('granularity is not correct');
  return {
    endpoint: e,
    start,
    end,
    filters,
    fields,
    sort,
    offset: offset ?? 0,
    limit: limit ?? settings.defaultLimit,
    limitSent: limit !== undefined,
    granularity,
    timeZone,
  };
}

function invalid(parameter: string): StatisticReject {
  return new StatisticReject(`invalid value: ${parameter}`);
}

/** A time without an offset is read in the request's time zone (UTC unless `timezone` is sent). */
function parseTime(text: string, timeZone: string): number | undefined {
  if (!MINUTE_TIME.test(text)) return undefined;
  const t = DateTime.fromISO(text, { zone: timeZone, setZone: false });
  return t.isValid ? t.toMillis() : undefined;
}

/** undefined when absent, null when malformed or out of [min, max]. */
function parseCount(text: string | undefined, min: number, max: number): number | undefined | null {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** Default fields (not shown; chosen): all four. */
function parseFields(text: string | undefined): StatisticField[] | undefined {
  if (text === undefined) return [...STATISTIC_FIELDS];
  const list = text.split(',').map((f) => f.trim());
  if (list.some((f) => !(STATISTIC_FIELDS as readonly string[]).includes(f))) return undefined;
  return [...new Set(list)] as StatisticField[];
}

/** `[+-]key`, key a value field or a result key of the grouping. */
function parseSort(text: string | undefined, grouping: StatisticGrouping | undefined): StatisticRequest['sort'] | null {
  if (text === undefined) return undefined;
  const match = /^([+-]?)([a-z_]+)$/.exec(text);
  const keys: readonly string[] = [...STATISTIC_FIELDS, ...(grouping ? GROUPING_KEYS[grouping] : [])];
  if (!match || !keys.includes(match[2]!)) return null;
  return { raw: text, key: match[2]!, descending: match[1] === '-' };
}

/** Data are per minute: buckets shorter than a minute or not whole minutes, or too many buckets, are refused. */
function acceptableGranularity(g: Granularity | undefined, start: number, end: number, timeZone: string): boolean {
  if (!g) return false;
  if (g.unit === 'second' && g.count % 60 !== 0) return false;
  const roughLength = { second: 1000, minute: MINUTE, hour: 60 * MINUTE }[g.unit as 'second' | 'minute' | 'hour'];
  if (roughLength !== undefined && (end - start) / (roughLength * g.count) > MAX_BUCKETS) return false;
  return roughLength !== undefined || bucketSpans(start, end, g, timeZone).length <= MAX_BUCKETS;
}
