import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/time.js';
import { runCli } from '../helpers/cli.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { ensureBuilt } from '../ops/entry.js';
import { DATABASE, expandGrafana } from './dashboards-fixture.js';

const DASHBOARDS = 'config/grafana/dashboards';

interface Panel {
  title: string;
  description?: string;
  timeFrom?: string;
  interval?: string;
  targets: Array<{ refId: string; query: string }>;
  fieldConfig: { defaults: { noValue?: string } };
}
interface Dashboard {
  time: { from: string; to: string };
  panels: Panel[];
}

const dashboards = readdirSync(DASHBOARDS)
  .filter((f) => f.endsWith('.json'))
  .map((file) => ({ file, json: JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as Dashboard }));

/** `now-24h`, `7d`: the length of a relative range. */
function relativeMs(text: string): number {
  const m = /^(?:now-)?(\d+)([hd])$/.exec(text);
  if (!m) throw new Error(`not a relative range: ${text}`);
  return Number(m[1]) * (m[2] === 'd' ? DAY : HOUR);
}

/** The range Grafana queries a panel with, `now` being now: the dashboard's default, or the panel's relative time. */
function panelRange(d: Dashboard, p: Panel, now: number) {
  expect(d.time).toEqual({ from: 'now-24h', to: 'now' });
  return { from: now - relativeMs(p.timeFrom ?? d.time.from), to: now, interval: p.interval ?? '1m' };
}

const DAILY = /^Unique users(, latest day| per day)/;

/** The only panels a demo may leave empty, each saying what it needs: a grouping, a closed day, two snapshots… */
const MAY_NEED_MORE = [
  'Regions',
  'Hits by region',
  'Unique users, latest day',
  'Unique users per day',
  'Unique users per day by stream',
  'Unique users per day by stream type',
  'Recorded periods now (time = first seen start)',
  'API calls by status',
  '429 Too Many Requests',
  'Retries',
  'Errors',
  'Reconciliation drift (stored − provider)',
  'Points written by measurement',
];

describe('the dashboards on their default range', () => {
  it('a daily unique-user panel reaches back past the start of the last closed day, whatever the time of day', () => {
    const daily = dashboards.flatMap(({ json }) =>
      json.panels.filter((p) => DAILY.test(p.title)).map((p) => ({ d: json, p })),
    );
    expect(daily.map(({ p }) => p.title).sort()).toEqual([
      'Unique users per day',
      'Unique users per day by stream',
      'Unique users per day by stream type',
      'Unique users, latest day',
    ]);
    // A day is final about an hour after it ends: just before midnight the last closed day began almost 48 h ago; at
    // 02:00 it may not be written yet, and the one before began 50 h ago.
    const today = Math.floor(Date.now() / DAY) * DAY;
    const cases = [
      { at: today + DAY - 1, covers: today - DAY },
      { at: today + 2 * HOUR, covers: today - 2 * DAY },
    ];
    for (const { d, p } of daily) {
      for (const { at, covers } of cases) expect(panelRange(d, p, at).from, p.title).toBeLessThanOrEqual(covers);
      expect(p.description, p.title).toMatch(/stamped at the start of the day/);
    }
  });
});

/**
 * A 3-hour demo (default groupings, as `npm run demo` collects) into a real InfluxDB 1.6.7, then every panel's own
 * queries on the range Grafana would send by default: each panel shows data, or its "no data" text says what it needs.
 */
describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)('after a 3-hour demo into InfluxDB 1.6.7', () => {
  let db: InfluxV1Server;
  let now: number;
  beforeAll(async () => {
    ensureBuilt();
    db = await startInfluxV1();
    await db.query(`CREATE DATABASE ${DATABASE}`);
    const env = { INFLUX_URL: db.url, INFLUX_DATABASE: DATABASE };
    const data = join(mkdtempSync(join(tmpdir(), 'dashboards-demo-')), 'data');
    const run = await runCli(['demo', '--hours', '3', '--duration', '1s', '--data-dir', data], env, {
      killAfterMs: 170_000,
    }).exited;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('missing windows: 0');
    now = Date.now();
  }, 180_000);
  afterAll(() => db?.stop());

  for (const { file, json } of dashboards) {
    it(`${file}: every panel shows data, or says what it needs`, async () => {
      const silent: string[] = [];
      const shown: string[] = [];
      for (const p of json.panels) {
        const range = panelRange(json, p, now);
        let rows = 0;
        for (const t of p.targets) rows += (await db.series(expandGrafana(t.query, range), DATABASE)).length;
        if (rows > 0) shown.push(p.title);
        else if (!p.fieldConfig.defaults.noValue) silent.push(p.title);
      }
      expect(silent).toEqual([]);
      const empty = json.panels.map((p) => p.title).filter((t) => !shown.includes(t));
      expect(
        empty.filter((t) => !MAY_NEED_MORE.includes(t)),
        file,
      ).toEqual([]);
    });
  }

  it('the Regions panels say which grouping they need', () => {
    const geography = dashboards.find((d) => d.file === 'cdn-geography.json')!.json;
    const regions = geography.panels.filter((p) => /region/i.test(p.title));
    expect(regions.length).toBe(2);
    for (const p of regions) {
      expect(p.fieldConfig.defaults.noValue, p.title).toMatch(/grouping regions.*jobs\.statistic\.groupings/);
    }
  });
});
