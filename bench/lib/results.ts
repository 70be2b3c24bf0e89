/**
 * What every benchmark shares: its figures go into bench/results.json under its own name (merged, so benches can run
 * one at a time), with the machine they ran on, and a line per target with the ratio to it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root: run.js's (BENCH_ROOT), else found from here. The bundles live in node_modules/.cache, and a
 * worktree's node_modules may be a symlink to another checkout's: walking up from the bundle would find that one.
 */
export const ROOT = process.env.BENCH_ROOT ?? findRoot();
export const RESULTS_PATH = process.env.BENCH_RESULTS ?? join(ROOT, 'bench', 'results.json');

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** A figure checked against a limit: `ratio` = value ÷ limit, `ok` when it is on the right side of it. */
export interface Target {
  name: string;
  value: number;
  limit: number;
  /** `max`: value must be ≤ limit; `min`: value must be ≥ limit. */
  kind: 'max' | 'min';
  unit?: string;
}

export function target(name: string, value: number, kind: 'max' | 'min', limit: number, unit = ''): Target {
  return { name, value, kind, limit, unit };
}

export function met(t: Target): boolean {
  return t.kind === 'max' ? t.value <= t.limit : t.value >= t.limit;
}

export function describeTarget(t: Target): string {
  const sign = t.kind === 'max' ? '≤' : '≥';
  const ratio = t.limit === 0 ? '' : `; ÷ target ${(t.value / t.limit).toFixed(3)}`;
  return (
    `${t.name}: ${round(t.value)}${t.unit ?? ''} (target ${sign} ${round(t.limit)}${t.unit ?? ''}${ratio}) ` +
    `${met(t) ? 'ok' : 'MISSED'}`
  );
}

export function machine(): Record<string, unknown> {
  return {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    // The 1/5/15-minute load averages when the figures were stored: 2 cores are shared with the servers under test.
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** Prints the targets and stores `figures` under `bench` in results.json; sets a failing exit code on a missed target.
 * */
export function report(bench: string, figures: Record<string, unknown>, targets: Target[]): void {
  for (const t of targets) console.log(`  ${describeTarget(t)}`);
  const all = existsSync(RESULTS_PATH)
    ? (JSON.parse(readFileSync(RESULTS_PATH, 'utf8')) as Record<string, unknown>)
    : {};
  all[bench] = {
    at: new Date().toISOString(),
    quick: process.env.BENCH_QUICK === '1',
    machine: machine(),
    ...figures,
    targets: targets.map((t) => ({
      ...t,
      value: round(t.value),
      ...(t.limit === 0 ? {} : { ratio: round(t.value / t.limit) }),
      met: met(t),
    })),
  };
  writeFileSync(RESULTS_PATH, `${JSON.stringify(all, null, 2)}\n`);
  if (!targets.every(met)) process.exitCode = 1;
}

export const quick = (): boolean => process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');

/** Whole numbers from 100 up, three decimals below: enough for every figure here. */
export function round(x: number): number {
  if (!Number.isFinite(x)) return x;
  return Math.abs(x) >= 100 ? Math.round(x) : Math.round(x * 1000) / 1000;
}

/** Least-squares slope of y over x (per unit of x). */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
