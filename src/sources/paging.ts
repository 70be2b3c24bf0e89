import type { Point } from '../points.js';

/** Elements per call; the services' maximum limit is not shown (the simulator's is 1000). */
export const PAGE_SIZE = 1000;

type Page = { result: readonly unknown[] };
type BucketPage = { result: ReadonlyArray<{ result: readonly unknown[] }> };

/**
 * Pages an offset/limit endpoint, mapping each page to points as it arrives, until `more(page)` says the result is
 * exhausted. The two kinds of `more` below cover the APIs' two paging shapes.
 */
export async function collectPages<P>(
  fetchPage: (offset: number, limit: number) => Promise<P>,
  toPoints: (page: P) => Point[],
  more: (page: P, limit: number) => boolean,
  pageSize = PAGE_SIZE,
): Promise<Point[]> {
  const points: Point[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const page = await fetchPage(offset, pageSize);
    points.push(...toPoints(page));
    if (!more(page, pageSize)) return points;
  }
}

/** A flat list (e.g. the buckets of statistic `/times`): more while a page comes back full. */
export const fullPage = (page: Page, limit: number): boolean => page.result.length >= limit;

/** Grouped buckets (`/times/<g>`, streamstat with granularity), limit per bucket: more while any bucket is full. */
export const anyFullBucket = (page: BucketPage, limit: number): boolean => page.result.some((b) => b.result.length >= limit);
