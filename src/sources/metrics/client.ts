import type { ZodType } from 'zod';
import { ParameterError } from '../../errors.js';
import type { Requester } from '../../contracts/requester.js';
import { ResponseFormatError, type RequestInfo } from '../../http/errors.js';
import type { Query } from '../../http/query.js';
import { APIS } from '../../spec/apis.js';
import { isMetricName } from '../../spec/metrics.js';
import { formatMinute, MINUTE, toMs, type TimeInput } from '../../time.js';
import { checkMinuteTime } from '../common/params.js';
import {
  metricsAggregateSchema,
  metricsByResourceSchema,
  metricsResourceElementSchema,
  type MetricsAggregateBody,
  type MetricsByResourceBody,
  type MetricsResourceElement,
} from './schema.js';
import type { ListSpec } from '../../http/json-list.js';

/** Spec rule 1: the period is 1 to 10 minutes. */
export const MIN_PERIOD_MS = MINUTE;
export const MAX_PERIOD_MS = 10 * MINUTE;

export interface MetricsQuery {
  account: string;
  start: TimeInput;
  end: TimeInput;
  /** Metric names (names.ts), sent as repeated `metric` parameters. Omitted: the service's default set. */
  metrics?: readonly string[];
  /** Resource identifier filter. */
  resource?: string;
  signal?: AbortSignal;
}

/**
 * Traffic metrics (spec 001). Both operations check the spec's rules first and throw a ParameterError naming the
 * parameter, so a broken call never reaches the network (nor spends quota).
 */
export class MetricsClient {
  constructor(private readonly http: Requester) {}

  /** `GET /app/metrics/v1/`: totals of the account (or one resource) over [start, end). */
  aggregate(q: MetricsQuery): Promise<MetricsAggregateBody> {
    return this.get('/', q, metricsAggregateSchema);
  }

  /** `GET /app/metrics/v1/resources`: the same metrics, one element per resource. */
  byResource(q: MetricsQuery): Promise<MetricsByResourceBody> {
    return this.get('/resources', q, metricsByResourceSchema);
  }

  /**
   * The same read, each resource handed to `onElement` as it arrives (the body returned has `data` empty): an answer
   * of thousands of resources is never held whole. An element that fails its schema fails the call, as in `byResource`;
   * the elements handed on before it are then the caller's to drop.
   */
  byResourceEach(
    q: MetricsQuery,
    onElement: (element: MetricsResourceElement) => void,
  ): Promise<MetricsByResourceBody> {
    return this.get('/resources', q, metricsByResourceSchema, {
      key: 'data',
      element: metricsResourceElementSchema,
      onElement,
    });
  }

  private async get<T extends Echo>(
    path: string,
    q: MetricsQuery,
    schema: ZodType<T>,
    list?: ListSpec<MetricsResourceElement>,
  ): Promise<T> {
    const checked = checkMetricsQuery(q);
    const res = await this.http.request({
      api: 'metrics',
      method: 'GET',
      path: `${APIS.metrics.prefix}${path}`,
      query: checked.query,
      schema,
      ...(q.signal ? { signal: q.signal } : {}),
      ...(list ? { list: list as ListSpec<unknown> } : {}),
    });
    checkEcho(res.body, checked, res.request);
    return res.body;
  }
}

interface CheckedQuery {
  account: string;
  startMs: number;
  endMs: number;
  query: Query;
}

/** Validates a query against the spec's rules and builds its query string parameters. */
export function checkMetricsQuery(q: MetricsQuery): CheckedQuery {
  const account = requireText('account', q.account);
  const startMs = checkMinuteTime(q.start, 'start');
  const endMs = checkMinuteTime(q.end, 'end');
  if (endMs <= startMs) throw new ParameterError('end', `must be after start (${formatMinute(startMs)})`);
  const period = endMs - startMs;
  if (period < MIN_PERIOD_MS || period > MAX_PERIOD_MS) {
    throw new ParameterError('end', `period must be 1 to 10 minutes, got ${period / MINUTE} minutes`);
  }
  const metrics = q.metrics === undefined ? undefined : checkMetricNames(q.metrics);
  const resource = q.resource === undefined ? undefined : requireText('resource', q.resource);
  const query: Query = {
    account,
    start: formatMinute(startMs),
    end: formatMinute(endMs),
    metric: metrics,
    resource,
  };
  return { account, startMs, endMs, query };
}

function requireText(parameter: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new ParameterError(parameter, 'is required and must not be empty');
  return value;
}

function checkMetricNames(metrics: readonly string[]): string[] {
  if (metrics.length === 0) throw new ParameterError('metric', 'empty list; omit it to request the default metrics');
  const unknown = metrics.filter((m) => !isMetricName(m));
  if (unknown.length > 0) throw new ParameterError('metric', `unknown metric name(s): ${unknown.join(', ')}`);
  return [...metrics];
}

interface Echo {
  start: string;
  end: string;
  account: string;
}

/**
 * The response echoes start, end and account (spec rule 4). Points are stamped with the requested window, so an
 * echo of another window or account would silently mislabel data: treat it as a malformed response.
 */
function checkEcho(body: Echo, q: CheckedQuery, request: RequestInfo): void {
  const mismatch =
    body.account !== q.account
      ? `account: echoed ${body.account}`
      : toMs(body.start) !== q.startMs
        ? `start: echoed ${body.start}`
        : toMs(body.end) !== q.endMs
          ? `end: echoed ${body.end}`
          : undefined;
  if (mismatch)
    throw new ResponseFormatError(request, `${mismatch}, not the requested value`, JSON.stringify(body).slice(0, 200));
}
