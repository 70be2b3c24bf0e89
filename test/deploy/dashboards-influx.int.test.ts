import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill } from '../../src/backfill/backfill.js';
import { planBackfill } from '../../src/plan/planner.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';
import { loadDeployConfig } from '../helpers/deploy-config.js';
import { INFLUXD_BIN, serverSkipReason } from '../helpers/servers.js';
import { DATABASE, expandGrafana, fillInflux, type FilledInflux, type PanelRange } from './dashboards-fixture.js';

const skip = serverSkipReason(INFLUXD_BIN);
const DASHBOARDS = 'config/grafana/dashboards';

interface Dashboard {
  title: string;
  panels: Array<{ title: string; targets: Array<{ refId: string; query: string }> }>;
  templating: { list: Array<{ name: string; type: string; query: string }> };
}

/** Queries that may rightly find nothing after a clean collection: throttling, retries, errors, failures, drift (verify
 * not run). */
const MAY_BE_EMPTY = [
  /'api_throttled'/,
  /'api_retries'/,
  /'job_failures'/,
  /'write_failures'/,
  /"status" !~/,
  /'verify_drift'/,
];

/**
 * Every panel and variable query of the provisioned dashboards, run against a real InfluxDB 1.6.7 (InfluxQL as
 * InfluxDB 2 serves it through its DBRP mapping) after the collector filled it from the simulator with the groupings
 * of config/collector.docker.yaml: none is refused, and every one that should show data does.
 */
describe.skipIf(skip)('dashboard queries on InfluxDB 1.6.7 filled by the collector', () => {
  let f: FilledInflux;
  let range: PanelRange;
  const docker = loadDeployConfig('config/collector.docker.yaml');

  beforeAll(async () => {
    // Two hours of final statistics, then one live pass (DVR snapshots) and two self-monitoring snapshots two minutes
    // apart (counter panels show increases, which need two points).
    const to = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
    const jobs = (sim: { streams: unknown }) => ({
      statistic: { groupings: docker.jobs.statistic.groupings },
      streamstat: { groupings: docker.jobs.streamstat.groupings },
      dvr: { streams: sim.streams },
    });
    f = await fillInflux(jobs, to - 2 * HOUR, to);
    // Daily unique users exist only for days that are over: one whole closed day of those jobs alone.
    const day = Math.floor(to / DAY) * DAY - DAY;
    const daily = f.rt.collector.jobs.filter((j) => j.key.endsWith('users_daily')).map((j) => j.key);
    expect(daily.length).toBeGreaterThan(0);
    const dailyResults = await runBackfill(
      f.rt.collector,
      planBackfill(f.rt.collector, { from: day, to: day + DAY }, daily),
    );
    expect(dailyResults.filter((r) => r.error)).toEqual([]);
    const tickAt = Date.now();
    await f.rt.collector.tick();
    // The dashboard's end: within the minute of the DVR snapshot ("recorded periods now" is that snapshot's ranges).
    const end = Math.floor(tickAt / MINUTE) * MINUTE + MINUTE;
    const stamp = Math.min(Date.now(), end - 1);
    // The runtime's telemetry reads every job's lag and backlog from the job state when the points are made.
    await f.rt.sink.write(f.rt.telemetry.toPoints(stamp - 2 * MINUTE));
    await f.rt.sink.write(f.rt.telemetry.toPoints(stamp));
    await f.rt.sink.flush();
    range = { from: day, to: end, interval: '1m' };
  }, 180_000);

  afterAll(() => f?.close());

  const files = readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json'));
  for (const file of files) {
    it(`${file}: every query runs, and shows data unless it counts failures`, async () => {
      const d = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as Dashboard;
      const queries = [
        ...d.panels.flatMap((p) =>
          p.targets.map((t) => ({ where: `${p.title} ${t.refId}`, query: expandGrafana(t.query, range) })),
        ),
        ...d.templating.list
          .filter((v) => v.type === 'query')
          .map((v) => ({ where: `$${v.name}`, query: expandGrafana(v.query, range) })),
      ];
      const failed: string[] = [];
      const empty: string[] = [];
      for (const { where, query } of queries) {
        try {
          const series = await f.db.series(query, DATABASE);
          if (series.length === 0 && !MAY_BE_EMPTY.some((re) => re.test(query))) empty.push(`${where}: ${query}`);
        } catch (err) {
          failed.push(`${where}: ${(err as Error).message}`);
        }
      }
      expect(failed).toEqual([]);
      expect(empty).toEqual([]);
    });
  }
});
