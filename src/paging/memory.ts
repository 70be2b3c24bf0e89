import { join } from 'node:path';
import { z } from 'zod';
import type { ServerPaging } from './server-paging.js';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import { loadStateFile, StateFile, type StateFormat } from '../state/json-state.js';

export const PAGING_FILE = 'paging.json';

const rowCount = z.number().int().min(0).safe();
const apiName = z.enum(API_NAMES as unknown as [ApiName, ...ApiName[]]);
const fileSchema = z
  .object({
    largestPage: z.partialRecord(apiName, rowCount),
    /** Per API, the page cap an answer showed (a short page followed by more rows). */
    pageCap: z.partialRecord(apiName, rowCount.min(1)).default({}),
    /** Per read (job key), the rows it last returned: the planner's forecast of its pages. */
    reads: z.record(z.string().min(1), rowCount).default({}),
  })
  .strict();
type PagingFile = z.output<typeof fileSchema>;
const pagingFormat: StateFormat<PagingFile> = {
  version: 1,
  schema: fileSchema,
  empty: () => ({ largestPage: {}, pageCap: {}, reads: {} }),
};

/**
 * The largest page each API has returned and the page cap an answer showed (ServerPaging), kept in `paging.json` of
 * the state dir. walkPages reads one more page after a page as large as any seen (it may have been capped by the
 * server) unless the cap is known; without this file every restart would start from nothing and pay that page again
 * on each paged read until the largest (or the cap) is seen anew.
 * It also keeps each grouped read's rows (the planner's forecast of its pages). Saved atomically (durable-file.ts) when
 * either changes — at most once per paged read, coalesced: one save in flight. A file that cannot be read or saved
 * costs those extra pages, never data (a failing save is reported once per streak).
 */
export class PagingMemory {
  private constructor(private readonly file: StateFile<PagingFile>) {}

  /** Seeds `paging` from the file (if any) and saves it again whenever it grows. */
  static async open(
    dir: string,
    paging: ServerPaging,
    onProblem: (message: string) => void = () => {},
  ): Promise<PagingMemory> {
    const path = join(dir, PAGING_FILE);
    const loaded = await loadStateFile(path, pagingFormat, { keepCopy: true });
    if (loaded.readError) onProblem(`${PAGING_FILE} unreadable: ${loaded.readError.message}`);
    if (loaded.defect !== undefined) onProblem(`${PAGING_FILE} ignored: ${loaded.defect}`);
    const largest = Object.entries(loaded.value.largestPage) as Array<[ApiName, number]>;
    for (const [api, rows] of largest) paging.observe(api, rows);
    for (const [api, rows] of Object.entries(loaded.value.pageCap) as Array<[ApiName, number]>)
      paging.learnCap(api, rows);
    for (const [read, rows] of Object.entries(loaded.value.reads)) paging.recordRows(read, rows);
    const sorted = <K extends string>(entries: Array<[K, number]>) =>
      Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
    const file = new StateFile(path, pagingFormat, {
      current: () =>
        ({
          largestPage: sorted(paging.known()),
          // Absent until an answer showed a cap: files of servers that never cap stay as they were.
          ...(paging.knownCaps().length > 0 ? { pageCap: sorted(paging.knownCaps()) } : {}),
          reads: sorted(paging.knownReads()),
        }) as PagingFile,
      durable: true,
      onFailure: (err) => onProblem(`${PAGING_FILE} not saved: ${(err as Error).message}`),
    });
    paging.onChange(() => void file.save());
    return new PagingMemory(file);
  }

  /** Resolves once the last growth seen is on disk (or its save failed and was reported). */
  flush(): Promise<void> {
    return this.file.flush();
  }
}
