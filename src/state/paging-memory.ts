import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ServerPaging } from '../http/server-paging.js';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import { writeFileDurably } from './durable-file.js';

export const PAGING_FILE = 'paging.json';
const FORMAT_VERSION = 1;

const fileSchema = z
  .object({
    version: z.literal(FORMAT_VERSION),
    largestPage: z.record(z.enum(API_NAMES as unknown as [ApiName, ...ApiName[]]), z.number().int().min(0).safe()),
    /** Per read (job key), the rows it last returned: the planner's forecast of its pages. */
    reads: z.record(z.string().min(1), z.number().int().min(0).safe()).default({}),
  })
  .strict();

/**
 * The largest page each API has returned (ServerPaging), kept in `paging.json` of the state dir. walkPages reads one
 * more page after a page as large as any seen (it may have been capped by the server); without this file every
 * restart would start from nothing and pay that page again on each paged read until the largest is seen anew.
 * It also keeps each grouped read's rows (the planner's forecast of its pages). Saved atomically (durable-file.ts) when
 * either changes — at most once per paged read, coalesced: one save in flight. A file that cannot be read or saved
 * costs those extra pages, never data.
 */
export class PagingMemory {
  private saving: Promise<void> = Promise.resolve();
  private queued = false;

  private constructor(
    private readonly path: string,
    private readonly paging: ServerPaging,
    private readonly onProblem: (message: string) => void,
  ) {}

  /** Seeds `paging` from the file (if any) and saves it again whenever it grows. */
  static async open(dir: string, paging: ServerPaging, onProblem: (message: string) => void = () => {}): Promise<PagingMemory> {
    const memory = new PagingMemory(join(dir, PAGING_FILE), paging, onProblem);
    const known = await memory.load();
    for (const [api, rows] of Object.entries(known.largestPage) as Array<[ApiName, number]>) paging.observe(api, rows);
    for (const [read, rows] of Object.entries(known.reads)) paging.recordRows(read, rows);
    paging.onChange(() => memory.scheduleSave());
    return memory;
  }

  /** Resolves once the last growth seen is on disk (or its save failed and was reported). */
  async flush(): Promise<void> {
    while (this.queued) await this.saving;
    await this.saving;
  }

  private async load(): Promise<Pick<z.output<typeof fileSchema>, 'largestPage' | 'reads'>> {
    const nothing = { largestPage: {}, reads: {} };
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.onProblem(`${PAGING_FILE} unreadable: ${(err as Error).message}`);
      return nothing;
    }
    try {
      return fileSchema.parse(JSON.parse(text));
    } catch (err) {
      this.onProblem(`${PAGING_FILE} ignored: ${(err as Error).message.split('\n')[0]}`);
      return nothing;
    }
  }

  /** One save in flight at most; growth meanwhile is written by one more save after it. */
  private scheduleSave(): void {
    if (this.queued) return;
    this.queued = true;
    this.saving = this.saving.then(async () => {
      this.queued = false;
      const sorted = <K extends string>(entries: Array<[K, number]>) => Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
      const file = { version: FORMAT_VERSION, largestPage: sorted(this.paging.known()), reads: sorted(this.paging.knownReads()) };
      try {
        await writeFileDurably(this.path, `${JSON.stringify(file)}\n`);
      } catch (err) {
        this.onProblem(`${PAGING_FILE} not saved: ${(err as Error).message}`);
      }
    });
  }
}
