/**
 * Reads another process's memory and CPU from /proc (Linux): what a daemon costs, measured from outside it, so the
 * measuring adds nothing to it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ; 100 on every usual Linux). */
const TICKS_PER_S = Number(safe(() => execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) ?? 100) || 100;

export interface ProcSample {
  /** Seconds since the sampling started. */
  t: number;
  rssMb: number;
  /** User + system CPU seconds the process used since it started. */
  cpuS: number;
}

/** Resident set size (VmRSS) in MB, or undefined once the process is gone. */
export function rssMb(pid: number): number | undefined {
  const status = safe(() => readFileSync(`/proc/${pid}/status`, 'utf8'));
  const kb = status?.match(/^VmRSS:\s+(\d+) kB/m)?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}

/** User + system CPU seconds (fields 14 and 15 of /proc/<pid>/stat), or undefined once the process is gone. */
export function cpuSeconds(pid: number): number | undefined {
  const stat = safe(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis (field 3 is the first).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/** The 1, 5 and 15 minute load averages of the machine. */
export function loadAverage(): [number, number, number] {
  const [a, b, c] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
  return [a!, b!, c!];
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
