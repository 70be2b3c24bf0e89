/**
 * Shared by the dashboard and alert tests: a simulator, a real InfluxDB 1.6.7 the collector filled from it, and
 * Grafana's part of running a panel (macros and variables substituted, as Grafana sends the query).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runBackfill } from '../../src/backfill/backfill.js';
import type { Runtime } from '../../src/app/runtime.js';
import { planBackfill } from '../../src/plan/planner.js';
import type { QuotaSet } from '../../src/limit/index.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { configFor, FAST_QUOTAS, runtimeFor } from '../helpers/collector.js';
import { startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';

export const DATABASE = 'cdn';

export interface FilledInflux {
  sim: Simulator;
  db: InfluxV1Server;
  rt: Runtime;
  close(): Promise<void>;
}

/**
 * Starts both servers and a collector writing to InfluxDB with `jobs` (for the first `accounts` accounts), then
 * backfills [from, to) (epoch ms). `quotas` of the simulator: scaled down by default; NO_QUOTAS when the test asks
 * the API for its own answers in bursts.
 */
export async function fillInflux(
  jobs: (sim: Simulator) => Record<string, unknown>,
  from: number,
  to: number,
  options: { accounts?: number; quotas?: QuotaSet } = {},
): Promise<FilledInflux> {
  const { accounts, quotas = FAST_QUOTAS } = options;
  const [sim, db] = await Promise.all([startSimulator({ quotas }), startInfluxV1()]);
  await db.query(`CREATE DATABASE ${DATABASE}`);
  const overrides = { jobs: jobs(sim), ...(accounts ? { accounts: sim.accounts.slice(0, accounts) } : {}) };
  const rt = await runtimeFor(configFor(sim, { type: 'influx-v1', url: db.url, database: DATABASE }, overrides));
  const results = await runBackfill(rt.collector, planBackfill(rt.collector, { from, to }));
  expect(results.filter((r) => r.error)).toEqual([]);
  return {
    sim,
    db,
    rt,
    async close() {
      await rt.close();
      await Promise.all([sim.close(), db.stop()]);
    },
  };
}

export interface PanelRange {
  /** Epoch ms, inclusive. */
  from: number;
  /** Epoch ms, exclusive: Grafana's range then ends 1 ms before (as its "previous hour/day" ranges do). */
  to: number;
  /** `$__interval`, e.g. `1h`. */
  interval: string;
}

/**
 * Grafana's part, done by hand: the time filter (inclusive at both ends, as Grafana writes it), the interval, `$top`,
 * `${__to:date:seconds}`, and every other variable as "All" (`.*`; the dashboards use them only inside regexes).
 */
export function expandGrafana(query: string, range: PanelRange): string {
  const last = range.to - 1;
  return query
    .replaceAll('$timeFilter', `time >= ${range.from}ms AND time <= ${last}ms`)
    .replaceAll('${__to:date:seconds}', String(Math.floor(last / 1000)))
    .replaceAll('$__interval', range.interval)
    .replaceAll('$top', '10')
    .replace(/\$[A-Za-z_]\w*/g, '.*');
}

interface Dashboard {
  uid: string;
  panels: Array<{ type: string; title: string; targets: Array<{ refId: string; query: string }> }>;
}

/** The query of a panel's target (default A), by dashboard file name, panel type (stat, timeseries, table) and title.
 * */
export function panelQuery(dashboard: string, type: string, title: string, refId = 'A'): string {
  const d = JSON.parse(readFileSync(join('config/grafana/dashboards', `${dashboard}.json`), 'utf8')) as Dashboard;
  const panel = d.panels.find((p) => p.type === type && p.title === title);
  if (!panel) throw new Error(`${dashboard} has no ${type} panel "${title}"`);
  const target = panel.targets.find((t) => t.refId === refId);
  if (!target) throw new Error(`${dashboard} / ${title} has no target ${refId}`);
  return target.query;
}
