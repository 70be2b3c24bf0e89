import { IANAZone } from 'luxon';
import { ParameterError } from '../../errors.js';
import type { Query } from '../../http/query.js';
import { parseGranularity } from '../../spec/granularity.js';
import {
  endpointPath,
  FILTER_NAMES,
  GROUPING_KEYS,
  GROUPING_RULES,
  STATISTIC_FIELDS,
  STATISTIC_SERVICES,
  type FilterName,
  type KeyValue,
  type StatisticEndpoint,
  type StatisticField,
  type StatisticGrouping,
  type StatisticService,
} from '../../spec/statistic.js';
import { formatMinute, formatMinuteUtc, type TimeInput } from '../../time.js';
import { checkFieldList, checkMinuteTime } from '../common/params.js';

/** The filters of spec A1 (the key table of spec/statistic.ts): `service` one of the services, `code` a number. */
type Filters = { [K in FilterName]?: K extends 'service' ? StatisticService : KeyValue<K> };

/** Parameters of spec A1 (the token travels separately, see HttpClient). */
export interface StatisticQuery extends Filters {
  start: TimeInput;
  end: TimeInput;
  language?: string;
  /** Time endpoints only (required there), e.g. `PT1H`, `P1D`. */
  granularity?: string;
  /** Time endpoints only: IANA zone in which buckets are aligned and times shown. */
  timezone?: string;
  /** `[+-]field`, e.g. `-traffic`; grouping endpoints only. */
  sort?: string;
  offset?: number;
  limit?: number;
  /** Sent comma-separated; all four when omitted. */
  fields?: readonly StatisticField[];
}

const SORT_PATTERN = /^[+-]?([a-z_]+)$/;

/**
 * Checks every rule of spec A1/A2 that can be checked locally and builds the query string. Throws a ParameterError
 * naming the parameter, before any request is made.
 */
export function buildStatisticQuery(q: StatisticQuery, e: StatisticEndpoint): Query {
  const start = checkMinuteTime(q.start, 'start');
  const end = checkMinuteTime(q.end, 'end');
  if (start >= end) throw new ParameterError('start', 'must be less than end');
  checkEndpointParameters(q, e);
  if (q.service !== undefined && !(STATISTIC_SERVICES as readonly string[]).includes(q.service)) {
    throw new ParameterError('service', `must be media or static, got "${String(q.service)}"`);
  }
  if (q.code !== undefined && (!Number.isInteger(q.code) || q.code < 100 || q.code > 999)) {
    throw new ParameterError('code', 'must be a three-digit HTTP status code');
  }
  if (q.offset !== undefined && (!Number.isInteger(q.offset) || q.offset < 0))
    throw new ParameterError('offset', 'must be a non-negative integer');
  if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 1))
    throw new ParameterError('limit', 'must be a positive integer');
  if (q.sort !== undefined) checkSort(q.sort, e.grouping);
  const fields = q.fields === undefined ? undefined : checkFieldList(q.fields, STATISTIC_FIELDS);
  for (const key of FILTER_NAMES) if (q[key] === '') throw new ParameterError(key, 'must not be empty');
  if (q.language === '') throw new ParameterError('language', 'must not be empty');

  // The spec's format, as public clients send it: YYYY-MM-DDThh:mm:00, UTC. With a `timezone` a zone-less time
  // might be read in that zone, so then the `Z` stays and leaves no doubt.
  const format = q.timezone === undefined ? formatMinute : formatMinuteUtc;
  const query: Query = { language: q.language, start: format(start), end: format(end) };
  if (e.times) Object.assign(query, { granularity: q.granularity, timezone: q.timezone });
  for (const key of FILTER_NAMES) query[key] = q[key];
  return { ...query, sort: q.sort, offset: q.offset, limit: q.limit, fields: fields?.join(',') };
}

/** Spec A1/A2: which parameters this endpoint accepts and requires. */
function checkEndpointParameters(q: StatisticQuery, e: StatisticEndpoint): void {
  if (e.times) {
    if (q.granularity === undefined) throw new ParameterError('granularity', 'is required on time endpoints');
    if (!parseGranularity(q.granularity)) {
      throw new ParameterError(
        'granularity',
        `must be an ISO 8601 duration with one component (e.g. PT5M, P1M), got "${q.granularity}"`,
      );
    }
    if (q.timezone !== undefined && !IANAZone.isValidZone(q.timezone))
      throw new ParameterError('timezone', `unknown IANA zone "${q.timezone}"`);
  } else {
    for (const key of ['granularity', 'timezone'] as const) {
      if (q[key] !== undefined) throw new ParameterError(key, 'is accepted only by time endpoints (/times…)');
    }
  }
  if (e.grouping === undefined) {
    if (q.sort !== undefined) throw new ParameterError('sort', `is not accepted by ${endpointPath(e)}`);
    if (!e.times)
      for (const key of ['offset', 'limit'] as const)
        if (q[key] !== undefined) throw new ParameterError(key, 'is not accepted by the plain total /');
    return;
  }
  const rules = GROUPING_RULES[e.grouping];
  for (const key of rules.requires)
    if (q[key] === undefined) throw new ParameterError(key, `is required by ${endpointPath(e)}`);
  for (const key of rules.forbids)
    if (q[key] !== undefined) throw new ParameterError(key, `is not accepted by ${endpointPath(e)}`);
}

/** Sort objects: a value field or one of the grouping's result keys (which keys a real service sorts by: not shown). */
function checkSort(sort: string, grouping: StatisticGrouping | undefined): void {
  const match = SORT_PATTERN.exec(sort);
  if (!match) throw new ParameterError('sort', `must have the form [+-]field, got "${sort}"`);
  const allowed: readonly string[] = [...STATISTIC_FIELDS, ...(grouping ? GROUPING_KEYS[grouping] : [])];
  if (!allowed.includes(match[1]!))
    throw new ParameterError('sort', `field "${match[1]}" must be one of ${allowed.join(', ')}`);
}
