import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiName } from '../http/errors.js';
import type { CallJournal } from '../limit/types.js';

const FILE = 'quota-calls.json';
/** More than any quota's N needs; older completions no longer count anyway. */
const KEEP = 500;

interface Entry {
  /** Completion times of recent calls (epoch ms). */
  done: number[];
  /** Calls sent and not yet completed; after a crash their completion is unknown. */
  inFlight: number;
}

/**
 * Remembers the API calls of this process across restarts, so that a collector restarted right after a crash (or a
 * kill -9) does not spend a quota the previous process already spent in the same window. Written before each send
 * (write-ahead) and after each completion; no fsync: a killed process loses nothing the kernel has, and a machine
 * crash takes longer to recover from than any quota period.
 */
export class QuotaJournal implements CallJournal {
  private readonly path: string;
  private readonly entries: Partial<Record<ApiName, Entry>>;
  private readonly loadedAt: number;

  constructor(dir: string, now: number) {
    this.path = join(dir, FILE);
    this.loadedAt = now;
    this.entries = readEntries(this.path);
    // Calls in flight when the last process died may have reached the server up to now: count them as just completed.
    for (const entry of Object.values(this.entries)) {
      if (!entry) continue;
      for (let i = 0; i < entry.inFlight; i++) entry.done.push(now);
      entry.inFlight = 0;
    }
  }

  history(api: ApiName): number[] {
    return [...(this.entries[api]?.done ?? [])];
  }

  sent(api: ApiName): void {
    this.entry(api).inFlight++;
    this.save();
  }

  completed(api: ApiName, at: number): void {
    const entry = this.entry(api);
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    entry.done.push(at);
    if (entry.done.length > KEEP) entry.done.splice(0, entry.done.length - KEEP);
    this.save();
  }

  private entry(api: ApiName): Entry {
    return (this.entries[api] ??= { done: [], inFlight: 0 });
  }

  private save(): void {
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.entries));
    renameSync(tmp, this.path);
  }

  get since(): number {
    return this.loadedAt;
  }
}

function readEntries(path: string): Partial<Record<ApiName, Entry>> {
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Partial<Entry>>;
    const out: Partial<Record<ApiName, Entry>> = {};
    for (const [api, e] of Object.entries(raw)) {
      const done = Array.isArray(e?.done) ? e.done.filter((t): t is number => typeof t === 'number') : [];
      out[api as ApiName] = { done, inFlight: typeof e?.inFlight === 'number' ? e.inFlight : 0 };
    }
    return out;
  } catch {
    // Missing or unreadable (first start, or torn by a crash before rename): nothing to remember.
    return {};
  }
}
