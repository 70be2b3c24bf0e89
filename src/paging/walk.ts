import { createHash } from 'node:crypto';
import type { ServerPaging } from './server-paging.js';
import { PagingError } from '../http/errors.js';
import type { ApiName } from '../spec/apis.js';
import type { Point } from '../points.js';
import type { PointsHandOff, SpanCalls } from '../contracts/job.js';

/**
 * Rows (or rows per bucket) asked for per call by default (`api.pageSize`); the services' maximum limit is not shown
 * (the simulator's is 1000), and a server that caps lower is paged through (walkPages).
 */
export const PAGE_SIZE = 1000;

/**
 * The paging parameters of one call as a real client sends them: `limit` alone on the first page (`offset=0` is the
 * default of every offset/limit service), `offset` only from the second page on.
 */
export function pageParams(offset: number, limit: number): { limit: number; offset?: number } {
  return offset > 0 ? { offset, limit } : { limit };
}

type Page = { result: readonly unknown[] };
type BucketPage = { result: ReadonlyArray<{ result: readonly unknown[] }> };

export interface PagedRead<P extends Page> {
  api: ApiName;
  /** Named in errors, e.g. `/times/countries`. */
  endpoint: string;
  fetchPage(offset: number, limit: number): Promise<P>;
  /** How many rows a page carried: `flatRows` or `largestBucket` below. */
  rows(page: NoInfer<P>): number;
  /**
   * The rows the whole read has, when the request fixes them (the buckets of statistic `/times`): the read ends once
   * they are in, without a page to look for more; a capped page short of them is paged through.
   */
  knownRows?: number;
  /** Names the read (its job's key): the rows of its fullest bucket are remembered to forecast its pages
   * (groupedCalls). */
  key?: string;
}

/**
 * Every non-empty page of an offset/limit endpoint, from `start`. The server is not trusted to honour `limit` or
 * `offset` (the largest limit it honours is not shown):
 * - the next offset advances by the rows actually received, so a server that caps pages below `limit` is paged
 *   through, never cut short;
 * - a non-empty page shorter than `limit` ends the read only when it is also shorter than the largest page this server
 *   has returned for the API (`paging`): a server that once served more rows per page does not cap at fewer. A
 *   page as large as any seen so far may be a capped one, so one more page is read (an empty one ends the read);
 * - unless the server's page cap is known: stated by the operator (`api.serverMaxLimit`; `limit` then never exceeds
 *   it) or shown by an earlier answer — a page shorter than the `limit` asked that more rows followed is the cap, kept
 *   per API (paging/memory.ts keeps it across restarts). Then a page shorter than the cap ends the read, and a page of
 *   exactly the cap is followed by the next;
 * - a page equal to the previous one means the server ignored `offset`: PagingError, never an endless loop;
 * - more than `paging.maxPages` pages: PagingError.
 */
export async function* walkPages<P extends Page>(
  paging: ServerPaging,
  read: PagedRead<P>,
  start = 0,
  pageSize = PAGE_SIZE,
): AsyncGenerator<P> {
  let previous: string | undefined;
  let offset = start;
  const limit = paging.limitFor(pageSize);
  const remember = (rows: number) => read.key !== undefined && paging.recordRows(read.key, rows);
  /** Rows of the previous page when it was shorter than `limit`: if more rows follow, that was the server's cap. */
  let shortBefore: number | undefined;
  for (let pages = 1; ; pages++) {
    const page = await read.fetchPage(offset, limit);
    const rows = read.rows(page);
    if (rows === 0) {
      remember(offset);
      return;
    }
    const print = fingerprint(page.result);
    if (print === previous) {
      throw new PagingError(
        read.api,
        read.endpoint,
        'repeated',
        pages,
        `page ${pages} (offset ${offset}) repeats the previous page: the server ignores offset`,
      );
    }
    previous = print;
    if (shortBefore !== undefined) paging.learnCap(read.api, shortBefore);
    shortBefore = rows < limit ? rows : undefined;
    yield page;
    const largest = paging.largestPage(read.api);
    const cap = paging.pageCap(read.api);
    paging.observe(read.api, rows);
    if (read.knownRows !== undefined) {
      if (offset + rows >= read.knownRows) return;
    } else if (rows < limit && rows < (cap ?? largest)) {
      remember(offset + rows);
      return;
    }
    if (pages >= paging.maxPages) {
      throw new PagingError(
        read.api,
        read.endpoint,
        'too-many-pages',
        pages,
        `still not at the end after ${pages} pages (api.maxPages), ${rows} rows on the last`,
      );
    }
    offset += rows;
  }
}

/**
 * A whole paged read mapped to points page by page (see walkPages). A PagingError fails the span; it stays pending.
 * With `handOff`, each page's points are handed over and taken before the next page is asked for, so one answer's
 * points are held whatever the rows of the span (waiting costs nothing a quota would not: a page of a grouped read is
 * one of 5 statistic calls a minute); without it, all are returned together.
 */
export async function collectPages<P extends Page>(
  paging: ServerPaging,
  read: PagedRead<P> & { toPoints(page: NoInfer<P>): Point[] },
  pageSize = PAGE_SIZE,
  handOff?: PointsHandOff,
): Promise<Point[]> {
  const points: Point[] = [];
  for await (const page of walkPages(paging, read, 0, pageSize)) {
    if (handOff) await handOff(read.toPoints(page));
    else points.push(...read.toPoints(page));
  }
  return points;
}

/** A read that is one call whatever it returns. */
export const SINGLE_CALL: SpanCalls = { least: 1, most: 1, paged: false };

/**
 * A paged read of groups not known in advance (walkPages): a page, and the page that checks it was not capped; more
 * when a bucket has more groups than a page holds.
 */
export const GROUPED_CALLS: SpanCalls = { least: 1, most: 2, paged: true };

/**
 * The calls a read of groups takes (walkPages), from what the server answered before: `rows`, the groups of its
 * fullest bucket last time (undefined: never read), the API's largest page `largest` so far, and the `limit`. Full
 * pages of `limit` (or of the server's page cap `pageCap`, when known: stated or shown by an answer), then the short
 * (or empty) page that ends it — plus, with the cap unknown, the page that checks a short page as large as any the API
 * served was not capped. `largest` is already the largest of the reads paging remembers, so a read that ties it is
 * checked and one below it is not.
 * Exact while the groups stay as paging last saw them (unknown: at most a page); groups that appear add pages.
 */
export function groupedCalls(rows: number | undefined, largest: number, wanted: number, pageCap?: number): SpanCalls {
  if (rows === undefined) return GROUPED_CALLS;
  const perPage = pageCap === undefined ? wanted : Math.min(wanted, pageCap);
  const pages = Math.floor(rows / perPage) + 1;
  const checked = pageCap === undefined && pages === 1 && rows > 0 && rows >= largest;
  const calls = pages + (checked ? 1 : 0);
  return { least: calls, most: calls, paged: true };
}

/**
 * The calls grouped read `key` of `api` takes at `limit` (groupedCalls, from what `paging` learnt of the server and
 * of this read), or GROUPED_CALLS when nothing is known of them (no paging state, no key).
 */
export function forecastGroupedCalls(
  paging: ServerPaging | undefined,
  api: ApiName,
  key: string | undefined,
  limit: number,
): SpanCalls {
  if (!paging || key === undefined) return GROUPED_CALLS;
  return groupedCalls(paging.rowsOf(key), paging.largestPage(api), limit, paging.pageCap(api));
}

/** A read whose rows the request fixes (`knownRows` of walkPages): exactly its pages, none to look for more. */
export function knownRowsCalls(knownRows: number, pageSize = PAGE_SIZE): SpanCalls {
  const pages = Math.max(1, Math.ceil(knownRows / pageSize));
  return { least: pages, most: pages, paged: false };
}

/** A flat list (e.g. the buckets of statistic `/times`). */
export const flatRows = (page: Page): number => page.result.length;

/** Grouped buckets (`/times/<g>`, streamstat with granularity): the limit applies per bucket, so the fullest counts. */
export const largestBucket = (page: BucketPage): number =>
  page.result.reduce((max, b) => Math.max(max, b.result.length), 0);

/** A digest of a page's rows: enough to see a repeat without holding the previous page. */
function fingerprint(result: readonly unknown[]): string {
  return createHash('sha1').update(JSON.stringify(result)).digest('base64');
}
