import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill } from '../../src/collector/backfill.js';
import { planBackfill } from '../../src/plan/planner.js';
import type { Runtime } from '../../src/collector/runtime.js';
import { loadConfigFile } from '../../src/config/loader.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { configFor, FAST_QUOTAS, runtimeFor } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';

const skip = serverSkipReason(INFLUXD_BIN);
const DASHBOARDS = 'config/grafana/dashboards';

interface Dashboard {
  title: string;
  panels: Array<{ title: string; targets: Array<{ refId: string; query: string }> }>;
  templating: { list: Array<{ name: string; type: string; query: string }> };
}

/**
 * Grafana's part, done by hand: the time filter, the interval, `$top`, and every other variable as "All" (`.*`;
 * the dashboards use them only inside regexes).
 */
function expand(query: string): string {
  return query
    .replaceAll('$timeFilter', 'time >= now() - 12h AND time <= now() + 1h')
    .replaceAll('$__interval', '1m')
    .replaceAll('$top', '10')
    .replace(/\$[A-Za-z_]\w*/g, '.*');
}

/** Queries that may rightly find nothing after a clean collection: throttling, retries, errors, failures. */
const MAY_BE_EMPTY = [/'api_throttled'/, /'api_retries'/, /'job_failures'/, /'write_failures'/, /"status" !~/];

/**
 * Every panel and variable query of the provisioned dashboards, run against a real InfluxDB 1.6.7 (InfluxQL as
 * InfluxDB 2 serves it through its DBRP mapping) after the collector filled it from the simulator with the groupings
 * of config/collector.docker.yaml: none is refused, and every one that should show data does.
 */
describe.skipIf(skip)('dashboard queries on InfluxDB 1.6.7 filled by the collector', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  let rt: Runtime;
  const docker = loadConfigFile('config/collector.docker.yaml', { CDN_BASE_URL: 'http://x', CDN_TOKEN: 't', CDN_ACCOUNTS: 'a', INFLUX_TOKEN: 't', INFLUX_ORG: 'o', INFLUX_BUCKET: 'b' });

  beforeAll(async () => {
    [sim, db] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS }), startInfluxV1()]);
    await db.query('CREATE DATABASE cdn');
    const jobs = {
      statistic: { groupings: docker.jobs.statistic.groupings },
      streamstat: { groupings: docker.jobs.streamstat.groupings },
      dvr: { streams: sim.streams },
    };
    rt = await runtimeFor(configFor(sim, { type: 'influx-v1', url: db.url, database: 'cdn' }, { jobs }));
    // Two hours of final statistics, then one live pass (DVR snapshots) and two self-monitoring snapshots two minutes
    // apart (counter panels show increases, which need two points).
    const to = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
    const results = await runBackfill(rt.collector, planBackfill(rt.collector, { from: to - 2 * HOUR, to }));
    expect(results.filter((r) => r.error)).toEqual([]);
    await rt.collector.tick();
    const now = Date.now();
    for (const job of rt.collector.jobs) rt.telemetry.jobLag(job.key, rt.collector.lagMs(job));
    for (const job of rt.collector.jobs.filter((j) => j.checkpointed)) rt.telemetry.jobBacklog(job.key, rt.collector.pending(job).length);
    await rt.sink.write(rt.telemetry.toPoints(now - 2 * MINUTE));
    await rt.sink.write(rt.telemetry.toPoints(now));
    await rt.sink.flush();
  }, 120_000);

  afterAll(async () => {
    await rt?.close();
    await Promise.all([sim?.close(), db?.stop()]);
  });

  const files = readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json'));
  for (const file of files) {
    it(`${file}: every query runs, and shows data unless it counts failures`, async () => {
      const d = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as Dashboard;
      const queries = [
        ...d.panels.flatMap((p) => p.targets.map((t) => ({ where: `${p.title} ${t.refId}`, query: expand(t.query) }))),
        ...d.templating.list.filter((v) => v.type === 'query').map((v) => ({ where: `$${v.name}`, query: expand(v.query) })),
      ];
      const failed: string[] = [];
      const empty: string[] = [];
      for (const { where, query } of queries) {
        try {
          const series = await db.series(query, 'cdn');
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
