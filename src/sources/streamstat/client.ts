import type { ZodType } from 'zod';
import { ParameterError } from '../../errors.js';
import type { Requester } from '../../contracts/requester.js';
import type { Query } from '../../http/query.js';
import { APIS } from '../../spec/apis.js';
import type { StreamstatGranularity, StreamstatGrouping, StreamstatLanguage } from '../../spec/streamstat.js';
import { ServerPaging } from '../../paging/server-paging.js';
import { flatRows, pageParams, walkPages } from '../../paging/walk.js';
import { withoutUndefined } from '../common/params.js';
import { buildStreamstatQuery, type StreamstatQuery } from './params.js';
import {
  streamstatGroupedSchema,
  streamstatTimesGroupedSchema,
  streamstatTimesSchema,
  streamstatTotalSchema,
  type StreamstatElement,
  type StreamstatGrouped,
  type StreamstatTimes,
  type StreamstatTimesGrouped,
  type StreamstatTotal,
} from './schemas.js';
import { bucketedOrFlat, expectBuckets, isFlatGrouped, isFlatTotal } from './shape.js';

const DEFAULT_PAGE_SIZE = 100;

export interface StreamstatClientOptions {
  /** Sent as `language` on every call unless the query sets its own. */
  language?: StreamstatLanguage;
  /** What paging learnt of the server (the runtime's, shared by every read); default: a fresh one for this client. */
  paging?: ServerPaging;
}

/**
 * Stream view statistics v2 (spec 002, part B). Every method checks the spec's rules first and throws a
 * ParameterError naming the parameter, so a broken call never spends one of the 30 calls a minute.
 */
export class StreamstatClient {
  constructor(
    private readonly http: Requester,
    private readonly options: StreamstatClientOptions = {},
  ) {
    this.paging = options.paging ?? new ServerPaging();
  }

  private readonly paging: ServerPaging;

  /** `GET /`: totals over [start, end). */
  total(q: StreamstatQuery): Promise<StreamstatTotal> {
    forbidGranularity(q, 'times');
    return this.get('/', q, 'total', streamstatTotalSchema);
  }

  /** `GET /<grouping>`: one element per group, one page (offset/limit as given). */
  grouped(grouping: StreamstatGrouping, q: StreamstatQuery): Promise<StreamstatGrouped> {
    forbidGranularity(q, 'timesGrouped');
    return this.get(groupingPath(grouping), q, 'grouping', streamstatGroupedSchema(grouping));
  }

  /**
   * Every element of a grouping, page by page from `q.offset` (default 0), without trusting the server's paging (see
   * walkPages); the page size is `pageSize`, so `q.limit` must be left unset.
   */
  async *pages(
    grouping: StreamstatGrouping,
    q: StreamstatQuery,
    pageSize = DEFAULT_PAGE_SIZE,
  ): AsyncGenerator<StreamstatElement[]> {
    if (q.limit !== undefined) throw new ParameterError('limit', 'pages() sets limit itself; pass pageSize instead');
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw new ParameterError('limit', 'pageSize must be a positive integer');
    const fetchPage = (offset: number, limit: number) => this.grouped(grouping, { ...q, ...pageParams(offset, limit) });
    const read = { api: 'streamstat' as const, endpoint: `/${grouping}`, fetchPage, rows: flatRows };
    for await (const page of walkPages(this.paging, read, q.offset ?? 0, pageSize)) yield page.result;
  }

  /**
   * `GET /?granularity=…`: the window as buckets (shape not shown in the spec; see schemas.ts). A service that ignores
   * `granularity` and answers one flat total: UnbucketedAnswerError (see shape.ts).
   */
  async times(q: StreamstatQuery): Promise<StreamstatTimes> {
    const granularity = requireGranularity(q);
    return expectBuckets(
      await this.get('/', q, 'total', bucketedOrFlat(streamstatTimesSchema, isFlatTotal)),
      granularity,
    );
  }

  /**
   * `GET /<grouping>?granularity=…`: buckets, each with its grouped elements (sort/offset/limit apply per bucket). A
   * flat list of elements instead: UnbucketedAnswerError.
   */
  async timesGrouped(grouping: StreamstatGrouping, q: StreamstatQuery): Promise<StreamstatTimesGrouped> {
    const granularity = requireGranularity(q);
    const schema = bucketedOrFlat(streamstatTimesGroupedSchema(grouping), isFlatGrouped);
    return expectBuckets(await this.get(groupingPath(grouping), q, 'grouping', schema), granularity);
  }

  private async get<T>(path: string, q: StreamstatQuery, kind: 'total' | 'grouping', schema: ZodType<T>): Promise<T> {
    const query: Query = buildStreamstatQuery({ language: this.options.language, ...withoutUndefined(q) }, kind);
    const res = await this.http.request({
      api: 'streamstat',
      method: 'GET',
      path: `${APIS.streamstat.prefix}${path}`,
      query,
      schema,
    });
    return res.body;
  }
}

function groupingPath(grouping: StreamstatGrouping): string {
  return `/${grouping}`;
}

function forbidGranularity(q: StreamstatQuery, method: string): void {
  if (q.granularity !== undefined)
    throw new ParameterError('granularity', `changes the response shape; use ${method}()`);
}

function requireGranularity(q: StreamstatQuery): StreamstatGranularity {
  if (q.granularity === undefined) throw new ParameterError('granularity', 'is required for bucketed results');
  return q.granularity;
}
