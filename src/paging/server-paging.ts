import type { ApiName } from '../spec/apis.js';

/** Default bound on the pages of one paged read (`api.maxPages`). */
export const DEFAULT_MAX_PAGES = 200;

/**
 * What paging has learned about the server behind one HttpClient (shared by its `withGate` copies): the largest page
 * — or, for bucketed answers, the largest bucket — each API has returned. The largest `limit` the APIs honour is not
 * shown in the spec; a page at least this large might have been cut by a server cap, a smaller one cannot have been
 * (see src/paging/walk.ts). Also carries the bound on pages per read and the server's page cap per API: stated by the
 * operator (`api.serverMaxLimit`), or learnt from an answer that showed it (a page shorter than the `limit` asked,
 * followed by more rows). With the cap known, a page shorter than it cannot have been capped.
 */
export class ServerPaging {
  private readonly largest = new Map<ApiName, number>();
  private readonly caps = new Map<ApiName, number>();
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

  /**
   * The most rows a page of `api` carries: `api.serverMaxLimit` when stated, else the cap an answer showed — while no
   * larger page has been served since (which would prove it wrong: data that grew between two pages can look like a
   * cap). Undefined while unknown.
   */
  pageCap(api: ApiName): number | undefined {
    if (this.serverMaxLimit !== undefined) return this.serverMaxLimit;
    const learnt = this.caps.get(api);
    return learnt !== undefined && learnt >= this.largestPage(api) ? learnt : undefined;
  }

  /** A page of `rows` rows, shorter than the limit asked, was followed by more rows: the server caps pages there. */
  learnCap(api: ApiName, rows: number): void {
    if (this.serverMaxLimit !== undefined || rows <= 0 || rows < this.largestPage(api)) return;
    if (this.caps.get(api) === rows) return;
    this.caps.set(api, rows);
    for (const listener of this.listeners) listener();
  }

  /** The page caps learnt from answers, per API (not the stated one). */
  knownCaps(): Array<[ApiName, number]> {
    return [...this.caps];
  }

  observe(api: ApiName, rows: number): void {
    if (rows <= this.largestPage(api)) return;
    this.largest.set(api, rows);
    for (const listener of this.listeners) listener();
  }

  /** Called on each new largest page, page cap or read's rows (src/paging/memory.ts keeps them across restarts). */
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
