/**
 * A file that grows by whole lines only, for the file sink and the dead-letter file. A full disk (ENOSPC) or a file
 * size limit (EFBIG) lets an append write part of its bytes and then fail; left there, the retried append would be
 * glued to that part: a malformed line, and its first point lost. So a failed append is cut back to where it began
 * before the error is passed on, and an append never starts in the middle of a line (one left by a crash, or a cut
 * that failed itself, is closed with a line feed first, so the new lines stay whole).
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from '../state/durable-file.js';

const NEWLINE = 0x0a;

export interface WholeLinesOptions {
  /** fdatasync each append before it resolves (and the directory of a file created): the file sink's promise. */
  sync: boolean;
}

export class WholeLinesFile {
  private handle: Promise<FileHandle> | undefined;
  /** Where an append that failed began, while cutting it back has failed too: cut there before the next one. */
  private tornAt: number | undefined;

  constructor(
    readonly path: string,
    private readonly options: WholeLinesOptions,
  ) {}

  /** Appends `lines` (each ending with a line feed) whole, or leaves the file as it was and throws. */
  async append(lines: Buffer): Promise<void> {
    const file = await this.file();
    if (this.tornAt !== undefined) {
      await file.truncate(this.tornAt);
      this.tornAt = undefined;
    }
    const start = (await file.stat()).size;
    const data = (await endsMidLine(file, start)) ? Buffer.concat([Buffer.of(NEWLINE), lines]) : lines;
    try {
      await file.appendFile(data);
      if (this.options.sync) await file.datasync(); // data and the size that reaches it: all a reader needs
    } catch (err) {
      await file.truncate(start).catch(() => (this.tornAt = start));
      throw err;
    }
  }

  /** Syncs what was appended (data and metadata). */
  async sync(): Promise<void> {
    if (this.handle) await (await this.handle).sync();
  }

  async close(): Promise<void> {
    if (!this.handle) return;
    const handle = this.handle;
    this.handle = undefined;
    const file = await handle;
    if (this.options.sync) await file.sync();
    await file.close();
  }

  private file(): Promise<FileHandle> {
    if (!this.handle) {
      const opening = mkdir(dirname(this.path), { recursive: true }).then(async () => {
        const handle = await open(this.path, 'a+'); // read too: the last byte tells whether a line is open
        if (!this.options.sync) return handle;
        // A file created now exists after a power loss only once its directory entry is durable too.
        await syncDirectory(dirname(this.path)).catch(async (err: unknown) => {
          await handle.close();
          throw err;
        });
        return handle;
      });
      // A failed open must not stick: the next append tries again.
      opening.catch(() => {
        if (this.handle === opening) this.handle = undefined;
      });
      this.handle = opening;
    }
    return this.handle;
  }
}

/** Whether the file's last byte (of `size`) is not a line feed. */
async function endsMidLine(file: FileHandle, size: number): Promise<boolean> {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await file.read(last, 0, 1, size - 1);
  return last[0] !== NEWLINE;
}
