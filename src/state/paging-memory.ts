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
  })
  .strict();

/**
 * The largest page each API has returned (ServerPaging), kept in `paging.json` of the state dir. walkPages reads one
 * more page after a page as large as any seen (it may have been capped by the server); without this file every
 * restart would start from nothing and pay that page again on each paged read until the largest is seen anew.
 * Saved atomically (durable-file.ts) when a new largest page is seen — rarely: only growth is written, coalesced.
 * A file that cannot be read or saved costs those extra pages, never data.
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
    for (const [api, rows] of await memory.load()) paging.observe(api, rows);
    paging.onGrow(() => memory.scheduleSave());
    return memory;
  }

  /** Resolves once the last growth seen is on disk (or its save failed and was reported). */
  async flush(): Promise<void> {
    while (this.queued) await this.saving;
    await this.saving;
  }

  private async load(): Promise<Array<[ApiName, number]>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.onProblem(`${PAGING_FILE} unreadable: ${(err as Error).message}`);
      return [];
    }
    try {
      const parsed = fileSchema.parse(JSON.parse(text));
      return Object.entries(parsed.largestPage) as Array<[ApiName, number]>;
    } catch (err) {
      this.onProblem(`${PAGING_FILE} ignored: ${(err as Error).message.split('\n')[0]}`);
      return [];
    }
  }

  /** One save in flight at most; growth meanwhile is written by one more save after it. */
  private scheduleSave(): void {
    if (this.queued) return;
    this.queued = true;
    this.saving = this.saving.then(async () => {
      this.queued = false;
      const largestPage = Object.fromEntries([...this.paging.known()].sort(([a], [b]) => a.localeCompare(b)));
      try {
        await writeFileDurably(this.path, `${JSON.stringify({ version: FORMAT_VERSION, largestPage })}\n`);
      } catch (err) {
        this.onProblem(`${PAGING_FILE} not saved: ${(err as Error).message}`);
      }
    });
  }
}
