import { join } from 'node:path';
import { z } from 'zod';
import { MAX_DATE_MS } from '../time-text.js';
import { loadStateFile, StateFile, type StateFormat } from './json-state.js';

/**
 * The logins the service refused in a row for one username, whichever process sent them: the service bans an account
 * after a number of wrong passwords from anywhere, so every process on a state dir counts into one record.
 */
export interface RefusedLogins {
  /** Refused logins since the last one that succeeded. */
  refused: number;
  /** The first of them (epoch ms). */
  since: number;
  /** The last of them (epoch ms). */
  lastAt: number;
}

export const LOGIN_REFUSALS_FILE = 'login-refusals.json';

const epochMs = z.number().min(0).max(MAX_DATE_MS);
/** Per username (not a secret: it is in the config and the log), its refused logins. No password, no digest of one. */
const refusalsFormat: StateFormat<{ usernames: Record<string, RefusedLogins> }> = {
  version: 1,
  schema: z
    .object({
      usernames: z.record(
        z.string().min(1),
        z.object({ refused: z.number().int().min(1).max(1_000_000), since: epochMs, lastAt: epochMs }).strict(),
      ),
    })
    .strict(),
  empty: () => ({ usernames: {} }),
};

/** Every username's refused logins in `dir`, read without a lock (`status`); empty when missing or unreadable. */
export async function readLoginRefusals(dir: string): Promise<Record<string, RefusedLogins>> {
  return (await loadStateFile(join(dir, LOGIN_REFUSALS_FILE), refusalsFormat)).value.usernames;
}

/**
 * The refused logins of one username in `<dir>/login-refusals.json`, read afresh before every use and changed by
 * read-modify-write (two processes refused within the same few milliseconds may count one: logins are seconds apart).
 * A file that cannot be read or written is reported and the count kept in memory: a refusal is never forgotten by
 * this process, whatever the disk does. The file is created by the first refusal only, so a command whose logins
 * succeed writes nothing.
 */
export class LoginRefusalFile {
  private latest: Record<string, RefusedLogins> = {};
  private readonly file: StateFile<{ usernames: Record<string, RefusedLogins> }>;

  constructor(
    dir: string,
    readonly username: string,
    private readonly onProblem: (message: string) => void = () => {},
  ) {
    this.file = new StateFile(join(dir, LOGIN_REFUSALS_FILE), refusalsFormat, {
      current: () => ({ usernames: this.latest }),
      durable: true,
      createDir: true,
      onFailure: (err) => this.onProblem(`${this.file.path} not saved (${(err as Error).message})`),
    });
  }

  /** The file, as messages name it. */
  get where(): string {
    return this.file.path;
  }

  async read(): Promise<RefusedLogins | undefined> {
    await this.load();
    return this.latest[this.username];
  }

  /** Replaces the username's entry with what `change` makes of it (undefined: none); saves the file if it changed. */
  async update(
    change: (entry: RefusedLogins | undefined) => RefusedLogins | undefined,
  ): Promise<RefusedLogins | undefined> {
    await this.load();
    const before = this.latest[this.username];
    const after = change(before);
    if (after === before) return after;
    const { [this.username]: _, ...others } = this.latest;
    this.latest = after === undefined ? others : { ...others, [this.username]: after };
    await this.file.save();
    return after;
  }

  private async load(): Promise<void> {
    const loaded = await loadStateFile(this.file.path, refusalsFormat, { keepCopy: true });
    if (loaded.problem !== undefined) this.onProblem(loaded.problem);
    // What this process counted stands while the file cannot be read or saved.
    if (loaded.problem !== undefined || this.file.failing) return;
    this.latest = loaded.value.usernames;
  }
}
