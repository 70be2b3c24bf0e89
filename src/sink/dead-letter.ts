import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { redactSecrets } from '../secrets.js';

/** One permanently rejected batch (or point), as a JSON line: enough to inspect, fix and replay by hand. */
export interface DeadLetter {
  /** ISO time of the rejection. */
  time: string;
  sink: string;
  /** HTTP status, or 0 when the collector itself could not encode the point. */
  status: number;
  /** The server's (or encoder's) explanation. */
  reason: string;
  lines: string[];
}

/** Appends dead letters to a JSON-lines file, creating its directory on first use. */
export class DeadLetterFile {
  private dirReady = false;

  constructor(readonly path: string) {}

  async append(letter: Omit<DeadLetter, 'time'>, now = new Date()): Promise<void> {
    if (!this.dirReady) {
      await mkdir(dirname(this.path), { recursive: true });
      this.dirReady = true;
    }
    const entry: DeadLetter = { time: now.toISOString(), ...letter };
    // The reason quotes the database's answer, which may repeat anything it was sent.
    await appendFile(this.path, redactSecrets(JSON.stringify(entry)) + '\n');
  }
}
