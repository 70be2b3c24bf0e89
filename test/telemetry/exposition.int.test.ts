import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startTelemetryServer, type TelemetryServer } from '../../src/telemetry/server.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { SetJobFacts } from '../helpers/job-facts.js';
import { promtool, PROMTOOL_BIN, serverSkipReason } from '../helpers/servers.js';

/** `promtool check metrics` parses as a scrape does and lints names: 0 valid, 1 unparsable, 3 lint problems. */
const checkMetrics = (text: string) => promtool(['check', 'metrics'], text);

/**
 * prom-client's default metrics name three gauges `*_total`, which promtool's lint objects to; they keep the names
 * every Node dashboard reads, so those three lint lines (and only those) are expected.
 */
const PROM_CLIENT_NAMES = /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have/;
function lintProblems(result: { code: number | null; output: string }): { code: number | null; problems: string[] } {
  const problems = result.output.split('\n').filter((line) => line !== '' && !PROM_CLIENT_NAMES.test(line));
  return { code: result.code === 3 && problems.length === 0 ? 0 : result.code, problems };
}

describe.skipIf(serverSkipReason(PROMTOOL_BIN) !== undefined)('/metrics as Prometheus text format (promtool)', () => {
  let server: TelemetryServer;
  const clock = new ManualClock(Date.UTC(2024, 0, 1));
  const telemetry = new Telemetry({
    clock,
    checkpoints: { keys: () => ['metrics/acme'], lastConfirmedAt: () => Date.UTC(2024, 0, 1) - 90_000 },
  });

  beforeAll(async () => {
    telemetry.apiCall('statistic', 429);
    telemetry.apiCall('metrics', 'timeout');
    telemetry.pointsWritten('cdn_traffic', 12);
    SetJobFacts.watchedBy(telemetry, clock)
      .failed('statistic/a "quoted"\\back\nslash/countries')
      .lag('metrics/acme', 61_500, 60_000)
      .backlog('metrics/acme', 3)
      .setAside('metrics/acme', 1);
    telemetry.quotaDemand('dvr', 1.25);
    telemetry.condition('state', 'not writable');
    telemetry.verified([{ measurement: 'cdn_traffic', field: 'traffic', account: 'acme', drift: -4 }]);
    server = await startTelemetryServer({ telemetry, port: 0, maxLagMs: 3_600_000 });
  });
  afterAll(async () => server?.close());

  it('the checker finds nothing to object to in what the collector serves', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(lintProblems(checkMetrics(text))).toEqual({ code: 0, problems: [] });
    const drift = 'cdn_collector_verify_drift{measurement_name="cdn_traffic",field_key="traffic",account="acme"} -4';
    expect(text).toContain(drift);
  });

  it('the checker can fail: a label value without quotes is refused', async () => {
    expect(checkMetrics('# TYPE x_total counter\nx_total{job=x} 1\n').code).not.toBe(0);
  });
});
