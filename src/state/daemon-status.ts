/**
 * What the running daemon knows and the state files do not — lag past set-aside spans, backlog, each job's last
 * error, each API's quota use — written by the daemon every few seconds to `<state.dir>/daemon-status.json` for
 * `cdn-collector status` (which reads it without any lock: the file is replaced atomically).
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiName } from '../spec/apis.js';

export interface DaemonStatus {
  pid: number;
  /** The host of `pid`: only there can a reader check that the process is alive. */
  host?: string;
  updatedAt: number;
  /** Set by the daemon's last report, written when it stopped. */
  stoppedAt?: number;
  jobs: Record<string, { lagMs: number; backlog: number; lastError?: { error: string; at: number } }>;
  apis: Partial<Record<ApiName, ApiQuotaUse>>;
}

export interface ApiQuotaUse {
  /** Calls in flight plus calls completed within the last period: what the quota counts now. */
  used: number;
  /** The quota: calls per period (absent: no quota). */
  calls?: number;
  periodMs?: number;
  /** Calls waiting for a slot. */
  queued: number;
}

const FILE = 'daemon-status.json';

export async function writeDaemonStatus(stateDir: string, status: DaemonStatus): Promise<void> {
  const path = join(stateDir, FILE);
  await writeFile(`${path}.tmp-${process.pid}`, `${JSON.stringify(status)}\n`);
  await rename(`${path}.tmp-${process.pid}`, path);
}

/** The daemon's last report, or undefined when there is none (no daemon ran, or it is unreadable). */
export async function readDaemonStatus(stateDir: string): Promise<DaemonStatus | undefined> {
  try {
    return JSON.parse(await readFile(join(stateDir, FILE), 'utf8')) as DaemonStatus;
  } catch {
    return undefined;
  }
}
