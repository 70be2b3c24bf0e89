/**
 * Paging faults of a server that does not honour the paging parameters (spec 002 leaves the largest limit "not shown"):
 * `cap` serves at most that many rows per page whatever `limit` says, silently; `ignoreOffset` always serves from the
 * first row. Applied where the routes cut a page out of a result.
 */
export interface PagingFault {
  cap?: number;
  ignoreOffset?: boolean;
}

/** The page `[offset, offset + limit)` of `list`, as a faulty server would cut it. */
export function pageOf<T>(list: readonly T[], offset: number, limit: number, fault: PagingFault | undefined): T[] {
  const from = fault?.ignoreOffset ? 0 : offset;
  const size = fault?.cap !== undefined ? Math.min(limit, fault.cap) : limit;
  return list.slice(from, from + size);
}
