import type { ApiName } from '../spec/apis.js';

/** Default bound on the pages of one paged read (`api.maxPages`). */
export const DEFAULT_MAX_PAGES = 200;

/**
 * What paging has learned about the server behind one HttpClient (shared by its `withGate` copies): the largest page
 * — or, for bucketed answers, the largest bucket — each API has returned. The largest `limit` the APIs honour is not
 * shown in the spec; a page at least this large might have been cut by a server cap, a smaller one cannot have been
 * (see src/paging/walk.ts). Also carries the bound on pages per read and, when the operator states it
 * (`api.serverMaxLimit`), the server's page cap: then a page shorter than it cannot have been capped.
 */
export class ServerPaging {
  private readonly largest = new Map<ApiName, number>();
  private readonly listeners: Array<() => void> = [];
  /** Per read (a job's key), the rows of its fullest bucket or list last time: the planner predicts its pages. */
  private readonly reads = new Map<string, number>();

  constructor(
    readonly maxPages: number = DEFAULT_MAX_PAGES,
    readonly serverMaxLimit?: number,
  ) {}

  /** The `limit` to send for a wanted page size: never above the server's stated cap. */
  limitFor(pageSize: number): number {
    return this.serverMaxLimit === undefined ? pageSize : Math.min(pageSize, this.serverMaxLimit);
  }

  largestPage(api: ApiName): number {
    return this.largest.get(api) ?? 0;
  }

  observe(api: ApiName, rows: number): void {
    if (rows <= this.largestPage(api)) return;
    this.largest.set(api, rows);
    for (const listener of this.listeners) listener();
  }

  /** Called on each new largest page or read's rows (src/paging/memory.ts keeps them across restarts). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The largest pages known, per API. */
  known(): Array<[ApiName, number]> {
    return [...this.largest];
  }

  rowsOf(read: string): number | undefined {
    return this.reads.get(read);
  }

  /** A read's rows (remembered with the largest pages: a change is saved too). */
  recordRows(read: string, rows: number): void {
    if (this.reads.get(read) === rows) return;
    this.reads.set(read, rows);
    for (const listener of this.listeners) listener();
  }

  knownReads(): Array<[string, number]> {
    return [...this.reads];
  }
}
