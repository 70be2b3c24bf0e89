import type { ApiName } from '../spec/apis.js';

/** Default bound on the pages of one paged read (`api.maxPages`). */
export const DEFAULT_MAX_PAGES = 200;

/**
 * What paging has learned about the server behind one HttpClient (shared by its `withGate` copies): the largest page
 * — or, for bucketed answers, the largest bucket — each API has returned. The largest `limit` the APIs honour is not
 * shown in the spec; a page at least this large might have been cut by a server cap, a smaller one cannot have been
 * (see src/sources/paging.ts). Also carries the bound on pages per read.
 */
export class ServerPaging {
  private readonly largest = new Map<ApiName, number>();
  private readonly listeners: Array<(api: ApiName, rows: number) => void> = [];

  constructor(readonly maxPages: number = DEFAULT_MAX_PAGES) {}

  largestPage(api: ApiName): number {
    return this.largest.get(api) ?? 0;
  }

  observe(api: ApiName, rows: number): void {
    if (rows <= this.largestPage(api)) return;
    this.largest.set(api, rows);
    for (const listener of this.listeners) listener(api, rows);
  }

  /** Called with each new largest page (src/state/paging-memory.ts keeps them across restarts). */
  onGrow(listener: (api: ApiName, rows: number) => void): void {
    this.listeners.push(listener);
  }

  /** The largest pages known, per API. */
  known(): Array<[ApiName, number]> {
    return [...this.largest];
  }
}
