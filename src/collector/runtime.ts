import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { CollectorConfig } from '../config/schema.js';
import { HttpClient } from '../http/client.js';
import { LimiterSet } from '../limit/index.js';
import type { Logger } from '../log.js';
import { createSink } from '../sink/index.js';
import type { Sink } from '../sink/types.js';
import { buildJobs } from '../sources/registry.js';
import { CheckpointStore } from '../state/checkpoints.js';
import { QuotaJournal } from '../state/quota-journal.js';
import { Telemetry } from '../telemetry/telemetry.js';
import { Collector } from './collector.js';

/** Everything a command needs, wired from one validated config. `close()` releases it in the right order. */
export interface Runtime {
  config: CollectorConfig;
  collector: Collector;
  http: HttpClient;
  limiters: LimiterSet;
  sink: Sink;
  store: CheckpointStore;
  telemetry: Telemetry;
  close(): Promise<void>;
}

export async function createRuntime(config: CollectorConfig, clock: Clock, log: Logger): Promise<Runtime> {
  const telemetry = new Telemetry({ clock, instance: config.instance ?? hostname() });
  const store = await CheckpointStore.open(config.state.dir, { clock });
  telemetry.watchCheckpoints(store);
  const limiters = new LimiterSet(
    {
      metrics: { calls: config.quotas.metrics.calls, periodMs: config.quotas.metrics.period },
      statistic: { calls: config.quotas.statistic.calls, periodMs: config.quotas.statistic.period },
      streamstat: { calls: config.quotas.streamstat.calls, periodMs: config.quotas.streamstat.period },
      dvr: { calls: config.quotas.dvr.calls, periodMs: config.quotas.dvr.period },
    },
    {
      clock,
      journal: new QuotaJournal(config.state.dir, clock.now()),
      onEvent: (e) => {
        if (e.type === 'call') telemetry.apiCall(e.api, e.status ?? e.error ?? 'error');
        else if (e.type === 'retry') telemetry.apiRetry(e.api);
      },
    },
  );
  const http = new HttpClient({
    baseUrl: config.api.baseUrl,
    token: config.api.token,
    timeoutMs: config.api.timeout,
    tokenPlacement: config.api.tokenPlacement,
    maxBodyBytes: config.api.maxBodyBytes,
    maxBodyBytesPerApi: config.api.maxBodyBytesPerApi,
    maxPages: config.api.maxPages,
  });
  const sink = createSink({ ...config.sink, ...config.output, telemetry });
  const collector = new Collector({
    jobs: buildJobs(config),
    http,
    limiters,
    sink,
    store,
    telemetry,
    clock,
    log,
    horizonMs: config.state.horizon,
    initialLookbackMs: config.state.initialLookback,
  });
  return {
    config,
    collector,
    http,
    limiters,
    sink,
    store,
    telemetry,
    async close() {
      await collector.stop();
      await limiters.close();
      await sink.close();
      await store.close();
      await http.close();
    },
  };
}
