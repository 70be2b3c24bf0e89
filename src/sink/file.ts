/**
 * Line protocol appended to a file, or written to stdout for `-`: for demos, piping, and replay with `influx write`
 * or `curl --data-binary @file` to /write or /api/v2/write. Timestamps are nanoseconds (unless told otherwise): the
 * precision InfluxDB assumes when the write names none, so a replay without `precision=` stores the right dates.
 */
import { once } from 'node:events';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BatchingSink, type BatchingOptions, type LineTransport, type Rejection } from './batching.js';
import { DeadLetterFile } from './dead-letter.js';
import { syncDirectory } from '../state/durable-file.js';
import { SinkError } from './errors.js';

export interface FileSinkOptions extends BatchingOptions {
  /** File to append to, or `-` for stdout. */
  path: string;
  deadLetterPath: string;
  /** Sink name in errors and dead letters (default `file`). */
  name?: string;
}

/**
 * Appends each batch and syncs it before confirming it: the confirmation advances the checkpoint, so a power loss
 * must not lose lines already marked collected. One sync per batch (not per line) keeps it cheap. A failed write
 * rejects (retryable: disks fill up and get freed).
 */
class FileTransport implements LineTransport {
  private handle: Promise<FileHandle> | undefined;

  constructor(
    private readonly sinkName: string,
    private readonly path: string,
  ) {}

  async send(body: Buffer | string): Promise<Rejection | undefined> {
    await this.guard('write', async () => {
      if (this.path === '-') {
        process.stdout.write(body);
        if (!process.stdout.write(NEWLINE)) await once(process.stdout, 'drain');
      } else {
        const file = await this.file();
        // One append per batch (a copy of it with its newline): the file sink is for demos and piping, not speed.
        await file.appendFile(typeof body === 'string' ? `${body}\n` : Buffer.concat([body, NEWLINE]));
        await file.datasync(); // data and the size that reaches it; the rest of the metadata is not needed to read it
      }
    });
    return undefined;
  }

  async flush(): Promise<void> {
    if (this.handle) await this.guard('fsync', async () => (await this.file()).sync());
  }

  async close(): Promise<void> {
    if (!this.handle) return;
    const handle = this.handle;
    this.handle = undefined;
    await this.guard('close', async () => {
      const file = await handle;
      await file.sync();
      await file.close();
    });
  }

  private file(): Promise<FileHandle> {
    if (!this.handle) {
      const opening = mkdir(dirname(this.path), { recursive: true }).then(async () => {
        const handle = await open(this.path, 'a');
        // A file created now exists after a power loss only once its directory entry is durable too.
        await syncDirectory(dirname(this.path)).catch(async (err: unknown) => {
          await handle.close();
          throw err;
        });
        return handle;
      });
      // A failed open must not stick: the next write tries again.
      opening.catch(() => {
        if (this.handle === opening) this.handle = undefined;
      });
      this.handle = opening;
    }
    return this.handle;
  }

  private async guard(action: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new SinkError(this.sinkName, undefined, true, `${action} ${this.path}: ${code}`, { cause: err });
    }
  }
}

const NEWLINE = Buffer.from('\n');

/** What a reader of the file assumes when told nothing (InfluxDB's default for /write and /api/v2/write). */
export const FILE_PRECISION = 'ns';

export function createFileSink(options: FileSinkOptions): BatchingSink {
  const name = options.name ?? 'file';
  const transport = new FileTransport(name, options.path);
  // One batch at a time keeps the file in the order the points were given.
  const settings = { ...options, precision: options.precision ?? FILE_PRECISION, maxInFlight: 1 };
  return new BatchingSink(name, transport, new DeadLetterFile(options.deadLetterPath), settings);
}
