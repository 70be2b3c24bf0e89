import { ParameterError } from '../../errors.js';
import type { Query } from '../../http/query.js';
import {
  isStreamstatGranularity,
  STREAM_TYPES,
  STREAMSTAT_FIELDS,
  type StreamstatField,
  type StreamstatGranularity,
  type StreamstatLanguage,
  type StreamType,
} from '../../spec/streamstat.js';
import { formatMinute, type TimeInput } from '../../time.js';
import { checkFieldList, checkMinuteTime } from '../common/params.js';

/** Parameters of spec B1 (the token travels separately, see HttpClient). */
export interface StreamstatQuery {
  start: TimeInput;
  end: TimeInput;
  language?: StreamstatLanguage;
  account?: string;
  /** Repeatable; requires `account`. */
  stream?: string | readonly string[];
  streamType?: StreamType | readonly StreamType[];
  country?: string;
  /** Requires `country`. */
  region?: string;
  browser?: string;
  platform?: string;
  /** Values to return; all three when omitted. */
  fields?: readonly StreamstatField[];
  /** `[+-]field`, e.g. `-users`; grouping endpoints only. */
  sort?: string;
  /** Grouping endpoints only; requires `limit`. */
  offset?: number;
  limit?: number;
  granularity?: StreamstatGranularity;
}

/** Which endpoint the parameters are for: sort/offset/limit exist only on grouping endpoints. */
export type EndpointKind = 'total' | 'grouping';

const SORT_PATTERN = /^[+-]?([a-z_]+)$/;

/**
 * Checks every rule of spec B that can be checked locally and builds the query string. Throws ParameterError naming
 * the parameter, before any request is made.
 */
export function buildStreamstatQuery(q: StreamstatQuery, endpoint: EndpointKind): Query {
  const start = checkMinuteTime(q.start, 'start');
  const end = checkMinuteTime(q.end, 'end');
  if (start >= end) throw new ParameterError('start', 'must be less than end');
  if (q.region !== undefined && q.country === undefined) throw new ParameterError('region', 'requires country');
  const streams = listOf(q.stream, 'stream');
  if (streams.length > 0 && q.account === undefined) throw new ParameterError('stream', 'requires account');
  const streamTypes = listOf(q.streamType, 'stream_type');
  for (const t of streamTypes) {
    if (!(STREAM_TYPES as readonly string[]).includes(t))
      throw new ParameterError('stream_type', `must be one of ${STREAM_TYPES.join(', ')}, got "${t}"`);
  }
  const fields = q.fields === undefined ? undefined : checkFieldList(q.fields, STREAMSTAT_FIELDS);
  if (endpoint === 'total') {
    for (const key of ['sort', 'offset', 'limit'] as const) {
      if (q[key] !== undefined) throw new ParameterError(key, 'is accepted only by grouping endpoints');
    }
  }
  if (q.sort !== undefined) checkSort(q.sort, fields ?? STREAMSTAT_FIELDS);
  if (q.offset !== undefined) {
    if (q.limit === undefined) throw new ParameterError('offset', 'is accepted only together with limit');
    if (!Number.isInteger(q.offset) || q.offset < 0)
      throw new ParameterError('offset', 'must be a non-negative integer');
  }
  if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 1))
    throw new ParameterError('limit', 'must be a positive integer');
  if (q.granularity !== undefined && !isStreamstatGranularity(q.granularity)) {
    throw new ParameterError(
      'granularity',
      `must be one of PT1M, PT5M, PT15M, PT1H, P1D, P1W, P1M, P1Y, got "${String(q.granularity)}"`,
    );
  }
  for (const key of ['account', 'country', 'region', 'browser', 'platform'] as const) nonEmpty(q[key], key);
  if (q.language !== undefined && q.language !== 'en' && q.language !== 'ru')
    throw new ParameterError('language', 'must be en or ru');

  // Spec B: "in UTC with zero seconds, with or without the trailing Z"; sent without, as public clients do.
  return {
    language: q.language,
    start: formatMinute(start),
    end: formatMinute(end),
    account: q.account,
    stream: streams.length > 0 ? streams : undefined,
    stream_type: streamTypes.length > 0 ? streamTypes : undefined,
    country: q.country,
    region: q.region,
    browser: q.browser,
    platform: q.platform,
    fields: fields?.join(','),
    sort: q.sort,
    offset: q.offset,
    limit: q.limit,
    granularity: q.granularity,
  };
}

function listOf(value: string | readonly string[] | undefined, name: string): string[] {
  const list = value === undefined ? [] : typeof value === 'string' ? [value] : [...value];
  for (const v of list) if (v === '') throw new ParameterError(name, 'must not be empty');
  return list;
}

function checkSort(sort: string, fields: readonly StreamstatField[]): void {
  const match = SORT_PATTERN.exec(sort);
  if (!match) throw new ParameterError('sort', `must have the form [+-]field, got "${sort}"`);
  if (!(fields as readonly string[]).includes(match[1]!)) {
    throw new ParameterError('sort', `field "${match[1]}" is not among the requested fields (${fields.join(', ')})`);
  }
}

function nonEmpty(value: string | undefined, name: string): void {
  if (value === '') throw new ParameterError(name, 'must not be empty');
}
