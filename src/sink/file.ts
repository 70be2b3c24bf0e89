/**
 * Line protocol appended to a file, or written to stdout for `-`: for demos, piping, and replay with `influx write`
 * or `curl --data-binary @file` to /write or /api/v2/write. Timestamps are nanoseconds (unless told otherwise): the
 * precision InfluxDB assumes when the write names none, so a replay without `precision=` stores the right dates.
 */
import { once } from 'node:events';
import { BatchingSink, type BatchingOptions, type LineTransport, type Rejection } from './batching.js';
import { DeadLetterFile } from './dead-letter.js';
import { isNoRoomCode, SinkError, SinkSpaceError } from './errors.js';
import { WholeLinesFile } from './whole-lines.js';

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
 * rejects (retryable: disks fill up and get freed) and leaves no part of its batch behind (WholeLinesFile).
 */
class FileTransport implements LineTransport {
  private readonly file: WholeLinesFile;

  constructor(
    private readonly sinkName: string,
    private readonly path: string,
  ) {
    this.file = new WholeLinesFile(path, { sync: true });
  }

  async send(body: Buffer | string): Promise<Rejection | undefined> {
    await this.guard('write', async () => {
      if (this.path === '-') {
        process.stdout.write(body);
        if (!process.stdout.write(NEWLINE)) await once(process.stdout, 'drain');
      } else {
        // One append per batch (a copy of it with its newline): the file sink is for demos and piping, not speed.
        await this.file.append(typeof body === 'string' ? Buffer.from(`${body}\n`) : Buffer.concat([body, NEWLINE]));
      }
    });
    return undefined;
  }

  async flush(): Promise<void> {
    await this.guard('fsync', () => this.file.sync());
  }

  async close(): Promise<void> {
    await this.guard('close', () => this.file.close());
  }

  private async guard(action: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      if (isNoRoomCode(code)) throw new SinkSpaceError(this.sinkName, this.path, code, { cause: err });
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
