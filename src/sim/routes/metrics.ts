import { APIS } from '../../spec/apis.js';
import { isMetricName, METRIC_NAMES, type MetricName } from '../../spec/metrics.js';
import { formatMinute, MINUTE } from '../../time.js';
import { aggregatePeriods, pickMetrics, resourcePeriod } from '../model/metrics.js';
import { findAccount, type SimAccount } from '../model/world.js';
import type { SimContext } from '../model/context.js';
import type { ApiRoute, SimReply, SimRequest } from './types.js';

/** Exact text of the spec for a time with seconds other than 00 (its HTTP status is not shown; chosen: 422). */
export const MINUTE_PRECISION_TEXT = 'Invalid time format. Time must be at minute precision';
/** The body for end ≤ start is not shown; chosen: this text (with the service's plausible spelling), 422. */
export const START_BEFORE_END_TEXT = 'start must be less then end';

const KNOWN_PARAMETERS = new Set(['account', 'start', 'end', 'metric', 'resource']);
const SINGLE_PARAMETERS = ['account', 'start', 'end', 'resource'] as const;
const REQUIRED_PARAMETERS = ['account', 'start', 'end'] as const;

/**
 * The 422 text of a period longer than the service allows. Not shown in the spec; chosen after its rule "The period
 * (start to end) is from 1 to 10 minutes", and for a 1-minute limit after the page that says so.
 */
export function metricsPeriodText(maxMinutes: number): string {
  return maxMinutes === 1 ? 'Period must be 1 minute' : `Period must be from 1 to ${maxMinutes} minutes`;
}
/** `YYYY-MM-DDThh:mm:ss`, UTC; a trailing `Z` is tolerated (not shown; a real parser plausibly accepts it). */
const TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z?$/;

interface MetricsParams {
  account: SimAccount;
  startMs: number;
  endMs: number;
  metrics: MetricName[];
  resource: string | undefined;
}

type Operation = 'aggregate' | 'resources';

/** Traffic metrics (spec 001): `GET /` (aggregate) and `GET /resources` (per resource). */
export const metricsRoute: ApiRoute = {
  api: 'metrics',
  prefix: APIS.metrics.prefix,
  handle(req: SimRequest, ctx: SimContext): SimReply {
    const operation = operationOf(req.path);
    if (!operation) return fail(404, 'Not Found', `Unknown path: ${req.path}`);
    // Method handling is not shown; a read-only service plausibly answers 405.
    if (req.method !== 'GET') return fail(405, 'Method Not Allowed', `Method ${req.method} is not allowed`);
    const params = parseParams(req, ctx);
    if ('status' in params) return params;
    return { status: 200, body: respond(operation, params, ctx) };
  },
};

function operationOf(path: string): Operation | undefined {
  if (path === '/' || path === '') return 'aggregate';
  if (path === '/resources' || path === '/resources/') return 'resources';
  return undefined;
}

function respond(operation: Operation, p: MetricsParams, ctx: SimContext): Record<string, unknown> {
  const resources = p.account.resources.filter((r) => p.resource === undefined || r.id === p.resource);
  const now = ctx.clock.now();
  const periods = resources.map((r) => resourcePeriod(ctx.world, p.account.name, r, p.startMs, p.endMs, now));
  const data =
    operation === 'aggregate'
      ? [pickMetrics(aggregatePeriods(periods, p.startMs, p.endMs), p.metrics)]
      : periods.map(({ resource, row }) => ({
          cname: resource.cname,
          resource: resource.id,
          resource_name: resource.name,
          ...pickMetrics(row, p.metrics),
        }));
  return {
    status: 'OK',
    start: formatMinute(p.startMs),
    end: formatMinute(p.endMs),
    account: p.account.name,
    metrics: p.metrics,
    data,
  };
}

/** Checks in the order a real service plausibly does: shape of the query, access, then values. */
function parseParams(req: SimRequest, ctx: SimContext): MetricsParams | SimReply {
  const q = req.query;
  for (const key of new Set(q.keys()))
    if (!KNOWN_PARAMETERS.has(key)) return invalid(`Unknown query parameter: ${key}`);
  for (const key of SINGLE_PARAMETERS)
    if (q.getAll(key).length > 1) return invalid(`Parameter ${key} must be given once`);
  for (const key of REQUIRED_PARAMETERS) if (!q.get(key)) return invalid(`Missing required parameter: ${key}`);
  const accountName = q.get('account') ?? '';
  const readable = req.accounts.includes(accountName) && !ctx.settings.metricsDeniedAccounts.includes(accountName);
  const account = readable ? findAccount(ctx.world, accountName) : undefined;
  // One documented text for a dead token and for an account the token may not read.
  if (!account) return fail(403, 'Forbidden', ctx.settings.metricsRefusal);

  const startMs = parseTime('start', q.get('start') ?? '');
  if (typeof startMs !== 'number') return startMs;
  const endMs = parseTime('end', q.get('end') ?? '');
  if (typeof endMs !== 'number') return endMs;
  if (endMs <= startMs) return invalid(START_BEFORE_END_TEXT);
  const maxMinutes = ctx.settings.metricsMaxPeriodMinutes;
  if (endMs - startMs > maxMinutes * MINUTE) return invalid(metricsPeriodText(maxMinutes));

  const requested = q.getAll('metric');
  const unknownMetric = requested.find((m) => !isMetricName(m));
  if (unknownMetric !== undefined) return invalid(`Unknown metric: ${unknownMetric}`);
  // The default set when `metric` is omitted is not shown; chosen: every metric. Repeats are answered once.
  const metrics = requested.length > 0 ? [...new Set(requested as MetricName[])] : [...METRIC_NAMES];

  const resource = q.get('resource') ?? undefined;
  if (resource !== undefined && !account.resources.some((r) => r.id === resource)) {
    return invalid(`Unknown resource: ${resource}`);
  }
  return { account, startMs, endMs, metrics, resource };
}

function parseTime(parameter: string, text: string): number | SimReply {
  const m = TIME_PATTERN.exec(text);
  const [year, month, day, hour, minute, second] = (m?.slice(1) ?? []).map(Number);
  if (
    !m ||
    year === undefined ||
    month === undefined ||
    day === undefined ||
    hour === undefined ||
    minute === undefined
  ) {
    return invalidTime(parameter);
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute);
  // Date.UTC rolls over (month 13, 25:00); a real parser rejects such dates.
  if (formatMinute(ms).slice(0, 16) !== text.slice(0, 16)) return invalidTime(parameter);
  if (second !== 0) return invalid(MINUTE_PRECISION_TEXT);
  return ms;
}

function invalidTime(parameter: string): SimReply {
  return invalid(`Invalid time format for ${parameter}. Expected YYYY-MM-DDThh:mm:00`);
}

function invalid(description: string): SimReply {
  return fail(422, 'Unprocessable Entity', description);
}

function fail(status: number, statusText: string, description: string): SimReply {
  return { status, body: { status: statusText, description } };
}
