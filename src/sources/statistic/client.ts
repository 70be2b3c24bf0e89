import type { ZodType } from 'zod';
import { ParameterError } from '../../errors.js';
import type { Requester } from '../../contracts/requester.js';
import { endpointPath, type StatisticEndpoint, type StatisticGrouping } from '../../spec/statistic.js';
import { APIS } from '../../spec/apis.js';
import { ServerPaging } from '../../paging/server-paging.js';
import { flatRows, largestBucket, pageParams, walkPages } from '../../paging/walk.js';
import type { ListSpec } from '../../http/json-list.js';
import { withoutUndefined } from '../common/params.js';
import { buildStatisticQuery, type StatisticQuery } from './params.js';
import {
  groupedBucketSchema,
  statisticGroupedSchema,
  statisticTimesGroupedSchema,
  statisticTimesSchema,
  statisticTotalSchema,
  type StatisticGrouped,
  type StatisticGroupedBucket,
  type StatisticRow,
  type StatisticTimes,
  type StatisticTimesGrouped,
  type StatisticTotal,
} from './schemas.js';

const DEFAULT_PAGE_SIZE = 100;

export interface StatisticClientOptions {
  /** Sent as `language` on every call unless the query sets its own. */
  language?: string;
  /** What paging learnt of the server (the runtime's, shared by every read); default: a fresh one for this client. */
  paging?: ServerPaging;
}

/** A body with the language the service answered in (its `Accept-Language` response header). */
export interface StatisticResponse<T> {
  body: T;
  language: string | undefined;
}

/**
 * Traffic statistics v3 (spec 002, part A): the 24 endpoints. Every method checks the spec's rules first and throws a
 * ParameterError naming the parameter, so a broken call never spends one of the 5 calls a minute.
 */
export class StatisticClient {
  constructor(
    private readonly http: Requester,
    private readonly options: StatisticClientOptions = {},
  ) {
    this.paging = options.paging ?? new ServerPaging();
  }

  private readonly paging: ServerPaging;

  /** `GET /`: totals over [start, end). */
  total(q: StatisticQuery): Promise<StatisticResponse<StatisticTotal>> {
    return this.get({ grouping: undefined, times: false }, q, statisticTotalSchema);
  }

  /** `GET /<grouping>`: one page of groups (offset/limit as given). */
  grouped(grouping: StatisticGrouping, q: StatisticQuery): Promise<StatisticResponse<StatisticGrouped>> {
    return this.get({ grouping, times: false }, q, statisticGroupedSchema);
  }

  /** `GET /times`: totals per bucket of `granularity`. */
  times(q: StatisticQuery): Promise<StatisticResponse<StatisticTimes>> {
    return this.get({ grouping: undefined, times: true }, q, statisticTimesSchema);
  }

  /** `GET /times/<grouping>`: per bucket, one page of groups (offset/limit apply inside each bucket). */
  timesGrouped(grouping: StatisticGrouping, q: StatisticQuery): Promise<StatisticResponse<StatisticTimesGrouped>> {
    return this.get({ grouping, times: true }, q, statisticTimesGroupedSchema);
  }

  /**
   * The same read, each bucket handed to `onBucket` as it arrives, checked (the body returned has `result` empty): the
   * answer's text and parse tree are never held whole, only the buckets the caller keeps. A bucket that fails its
   * schema fails the call; the buckets handed on before it are then the caller's to drop.
   */
  timesGroupedEach(
    grouping: StatisticGrouping,
    q: StatisticQuery,
    onBucket: (bucket: StatisticGroupedBucket) => void,
  ): Promise<StatisticResponse<StatisticTimesGrouped>> {
    const list = { key: 'result', element: groupedBucketSchema, onElement: onBucket };
    return this.get({ grouping, times: true }, q, statisticTimesGroupedSchema, list);
  }

  /**
   * `timesGrouped`'s body read bucket by bucket (timesGroupedEach): the same body, its buckets checked as they arrive,
   * without the answer's text and parse tree held whole besides them.
   */
  async timesGroupedBuckets(grouping: StatisticGrouping, q: StatisticQuery): Promise<StatisticTimesGrouped> {
    const buckets: StatisticGroupedBucket[] = [];
    const { body } = await this.timesGroupedEach(grouping, q, (bucket) => buckets.push(bucket));
    return { ...body, result: buckets };
  }

  /**
   * Every group of `/<grouping>`, page by page from `q.offset` (or 0), without trusting the server's paging
   * (see walkPages: capped pages are paged through, a repeated page or too many pages is a PagingError).
   */
  pages(grouping: StatisticGrouping, q: StatisticQuery, pageSize = DEFAULT_PAGE_SIZE): AsyncGenerator<StatisticRow[]> {
    return this.walk(`/${grouping}`, (page) => this.grouped(grouping, page), flatRows, q, pageSize);
  }

  /**
   * Every group of `/times/<grouping>`: the limit applies inside each bucket, so pages continue until no bucket can
   * have more (see walkPages). Each yielded page holds the buckets with the groups of that page.
   */
  timesPages(
    grouping: StatisticGrouping,
    q: StatisticQuery,
    pageSize = DEFAULT_PAGE_SIZE,
  ): AsyncGenerator<StatisticGroupedBucket[]> {
    return this.walk(`/times/${grouping}`, (page) => this.timesGrouped(grouping, page), largestBucket, q, pageSize);
  }

  /** The pages of one endpoint from `q.offset` (or 0): `fetch` reads `q` with one page's offset and limit. */
  private async *walk<R, P extends { result: R[] }>(
    endpoint: string,
    fetch: (q: StatisticQuery) => Promise<StatisticResponse<P>>,
    rows: (page: P) => number,
    q: StatisticQuery,
    pageSize: number,
  ): AsyncGenerator<R[]> {
    checkPaging(q, pageSize);
    const fetchPage = async (offset: number, limit: number) =>
      (await fetch({ ...q, ...pageParams(offset, limit) })).body;
    const read = { api: 'statistic' as const, endpoint, fetchPage, rows };
    for await (const page of walkPages(this.paging, read, q.offset ?? 0, pageSize)) yield page.result;
  }

  private async get<T>(
    e: StatisticEndpoint,
    q: StatisticQuery,
    schema: ZodType<T>,
    list?: ListSpec<StatisticGroupedBucket>,
  ): Promise<StatisticResponse<T>> {
    const query = buildStatisticQuery({ language: this.options.language, ...withoutUndefined(q) }, e);
    const path = `${APIS.statistic.prefix}${endpointPath(e)}`;
    const res = await this.http.request({
      api: 'statistic',
      method: 'GET',
      path,
      query,
      schema,
      ...(list ? { list: list as ListSpec<unknown> } : {}),
    });
    return { body: res.body, language: res.headers['accept-language'] };
  }
}

function checkPaging(q: StatisticQuery, pageSize: number): void {
  if (q.limit !== undefined) throw new ParameterError('limit', 'paging sets limit itself; pass pageSize instead');
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new ParameterError('limit', 'pageSize must be a positive integer');
}
