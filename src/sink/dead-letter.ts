import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { redactSecrets } from '../secrets.js';
import { refusalCause, refusalFix, type RefusalCause } from './refusal.js';
import { WholeLinesFile } from './whole-lines.js';

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

/**
 * Appends dead letters to a JSON-lines file, creating its directory on first use; a letter is written whole or not at
 * all (a full disk leaves no half line for the next one to be glued to).
 */
export class DeadLetterFile {
  private readonly file: WholeLinesFile;
  /** The appends under way, one after another: two requests can be refused at once. */
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {
    this.file = new WholeLinesFile(path, { sync: false });
  }

  append(letter: Omit<DeadLetter, 'time'>, now = new Date()): Promise<void> {
    const entry: DeadLetter = { time: now.toISOString(), ...letter };
    // The reason quotes the database's answer, which may repeat anything it was sent.
    const bytes = Buffer.from(`${redactSecrets(JSON.stringify(entry))}\n`);
    // One at a time: an append meeting the descriptor another one closed failed, and the cut-back it left pending
    // erased that other letter at the next append.
    const appended = this.queue.then(() => this.appendAndClose(bytes));
    this.queue = appended.catch(() => {});
    return appended;
  }

  private async appendAndClose(bytes: Buffer): Promise<void> {
    try {
      await this.file.append(bytes);
    } finally {
      await this.file.close(); // dead letters are rare: no descriptor held between them
    }
  }
}

/** Lines of the dead-letter file the database refused (status ≠ 0), per cause: what `status` lists. */
export interface RefusedSummary {
  cause: RefusalCause;
  points: number;
  firstAt: string;
  lastAt: string;
  /** The newest refusal's words, and what fixes it. */
  reason: string;
  fix: string;
}

/**
 * Reads `path` line by line (it may be large) and sums the lines the database refused by cause; lines the collector
 * set aside itself (status 0: a value no line can carry) are not refusals. An absent file: none.
 */
export async function readRefused(path: string): Promise<RefusedSummary[]> {
  const byCause = new Map<RefusalCause, RefusedSummary>();
  let lines: AsyncIterable<string>;
  try {
    await access(path);
    lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  } catch {
    return [];
  }
  for await (const text of lines) {
    let letter: Partial<DeadLetter>;
    try {
      letter = JSON.parse(text) as Partial<DeadLetter>;
    } catch {
      continue; // a line cut by a crash
    }
    if (!letter.status || typeof letter.reason !== 'string' || typeof letter.time !== 'string') continue;
    const cause = refusalCause(letter.reason);
    const entry = byCause.get(cause) ?? {
      cause,
      points: 0,
      firstAt: letter.time,
      lastAt: letter.time,
      reason: '',
      fix: '',
    };
    entry.points += Array.isArray(letter.lines) ? letter.lines.length : 0;
    entry.lastAt = letter.time;
    entry.reason = letter.reason;
    entry.fix = refusalFix(letter.reason);
    byCause.set(cause, entry);
  }
  return [...byCause.values()];
}
