import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { CollectorConfig } from '../config/schema.js';
import { HttpClient } from '../http/client.js';
import type { Dispatcher } from '../http/undici.js';
import { LimiterSet } from '../limit/index.js';
import type { LimiterEvent } from '../limit/types.js';
import type { Logger } from '../log.js';
import { SCHEMA } from '../schema/schema.js';
import { createSink } from '../sink/index.js';
import type { Sink } from '../sink/types.js';
import { buildJobs, sourcesLearnt } from '../sources/registry.js';
import { CheckpointStore } from '../state/checkpoints.js';
import { ServerPaging } from '../paging/server-paging.js';
import { PagingMemory } from '../paging/memory.js';
import { QuotaJournal } from '../state/quota-journal.js';
import { SetAsideStore } from '../state/set-aside.js';
import { perApi } from '../spec/apis.js';
import { Telemetry } from '../telemetry/telemetry.js';
import type { Shard } from '../config/shard.js';
import { Collector } from '../collector/collector.js';
import { AccountDiscovery } from '../collector/discovery.js';
import { checkConfiguredAccounts } from '../collector/account-check.js';
import { reportJournalEvent, reportLimiterEvent } from '../telemetry/limiter-reports.js';
import { tokenProviderFor } from '../auth/from-config.js';
import type { TokenProvider } from '../http/token-provider.js';
import { AuthReports } from '../telemetry/auth-reports.js';
import { RefusalReports } from '../telemetry/refusal-reports.js';
import { ApiWatch } from '../telemetry/api-watch.js';
import { FailureLines } from '../telemetry/failure-lines.js';
import { watchedSink } from '../telemetry/sink-watch.js';
import { AccountStanding } from '../sources/common/account-standing.js';
import { reportAccountStanding } from '../telemetry/account-reports.js';

/** Passes of an API with no quota that run at once (a backfill's jobs side by side are as many). */
const PASSES_AT_ONCE_WITHOUT_QUOTA = 16;

/** Everything a command needs, wired from one validated config. `close()` releases it in the right order. */
export interface Runtime {
  config: CollectorConfig;
  /** The clock everything of this runtime reads (limiters, checkpoints, telemetry, the daemon's housekeeping). */
  clock: Clock;
  collector: Collector;
  http: HttpClient;
  /** What paging learnt of the server: the sources' paged reads and their forecasts read it. */
  paging: ServerPaging;
  /** Where the client's tokens come from; stopped with the collecting (a login in flight is abandoned). */
  tokens: TokenProvider;
  limiters: LimiterSet;
  /** Every API attempt: reports the first failure of each API at once; counts calls and 429s. */
  watch: ApiWatch;
  sink: Sink;
  store: CheckpointStore;
  aside: SetAsideStore;
  telemetry: Telemetry;
  /** Calls `listener` with every limiter event from now on (progress); returns the function that stops it. */
  onLimiterEvent(listener: (event: LimiterEvent) => void): () => void;
  /** With `accounts: auto`: finds the token's accounts and adds their jobs (the daemon refreshes it periodically). */
  discovery: AccountDiscovery | undefined;
  /** Which accounts the inventory listed at start and which ones an API refuses (the log, /healthz, `status`). */
  accounts: AccountStanding;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** `--shard`: the config is already narrowed (narrowToShard); discovered accounts are narrowed with it. */
  shard?: Shard;
  /** `--force-login`: one login is sent even though earlier refused logins stopped them. */
  forceLogin?: boolean | undefined;
  /**
   * Checks the configured accounts against the token's inventory before returning (checkConfiguredAccounts): the
   * commands that collect or verify; an account it does not list is a ConfigError, the runtime closed.
   */
  checkAccounts?: boolean;
  /** Where the API's calls and logins go instead of a connection pool of their own (tests: an in-process simulator). */
  dispatcher?: Dispatcher;
}

export async function createRuntime(
  config: CollectorConfig,
  clock: Clock,
  log: Logger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const failing = { apiAfterMs: config.http.apiFailingAfter, sinkAfterMs: config.http.sinkFailingAfter };
  const telemetry = new Telemetry({ clock, instance: config.instance ?? hostname(), failing });
  // The APIs' calls, the sink's writes and the logins log their runs of failures alike: first at once, a summary a
  // minute.
  const failureLines = new FailureLines(log, clock);
  const auth = new AuthReports(telemetry, log, clock, failureLines);
  // Before anything is opened: an unreadable password file, or logins stopped by earlier refusals, is a config error
  // with nothing to release.
  const tokens = tokenProviderFor(config.api, {
    clock,
    onEvent: (e) => auth.report(e),
    stateDir: config.state.dir,
    forceLogin: options.forceLogin,
    dispatcher: options.dispatcher,
    onProblem: (problem) =>
      log.warn({ problem }, 'refused-login count: file unreadable or not saved; counted in memory'),
  });
  await tokens.checkStart?.();
  telemetry.setFailingLimits({ refusalsToFail: tokens.renew ? 2 : 1 }); // a renewable token gets its renewal first
  const store = await CheckpointStore.open(config.state.dir, { clock });
  telemetry.watchCheckpoints(store);
  let journal: QuotaJournal;
  try {
    journal = new QuotaJournal(config.state.dir, { clock, onEvent: (e) => reportJournalEvent(telemetry, log, e) });
  } catch (err) {
    await store.close();
    throw err;
  }
  // Opened under the checkpoint store's lock. A list that cannot be read or saved loses no data (see SetAsideStore).
  const { store: aside, problem } = await SetAsideStore.open(config.state.dir, {
    clock,
    onSaveError: (err) =>
      log.warn(
        { err: (err as Error).message },
        'set-aside list not saved; after a restart its spans are collected again',
      ),
  });
  if (problem)
    log.warn(
      { problem },
      'set-aside list unreadable; its spans are collected again and set aside anew if they still fail',
    );
  const limiterListeners = new Set<(event: LimiterEvent) => void>();
  // Each API's run of failures is telemetry's (/healthz, /metrics, verify's give-up); its log lines read that record.
  const watch = new ApiWatch(log, clock, telemetry, tokens.source, failureLines);
  // The limiter's events are the one stream of attempts: telemetry, the API watch's lines and progress read it.
  const limiters = new LimiterSet(
    perApi((api) => ({ calls: config.quotas[api].calls, periodMs: config.quotas[api].period })),
    {
      clock,
      journal,
      maxRetryAfterMs: config.api.maxRetryAfter,
      onEvent: (e) => {
        reportLimiterEvent(telemetry, log, e);
        watch.observe(e);
        for (const listener of limiterListeners) listener(e);
      },
    },
  );
  const http = new HttpClient({
    baseUrl: config.api.baseUrl,
    token: tokens,
    timeoutMs: config.api.timeout,
    tokenPlacement: config.api.tokenPlacement,
    maxBodyBytes: config.api.maxBodyBytes,
    maxBodyBytesPerApi: config.api.maxBodyBytesPerApi,
    clock,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  // What paging learns of the server (page sizes, each read's rows), the sources' reads share it.
  const paging = new ServerPaging(config.api.maxPages, config.api.serverMaxLimit);
  // The largest page per API survives restarts: walkPages' check for a capped page costs no extra call per read.
  const pagingMemory = await PagingMemory.open(config.state.dir, paging, (problem) =>
    log.warn({ problem }, 'paging memory'),
  );
  // The sink's run of failed writes is telemetry's (/healthz, /metrics); its log lines read that one record.
  const unwatched = createSink({ ...config.sink, ...config.output, schema: SCHEMA, telemetry });
  const sink = watchedSink(unwatched, config.sink, telemetry, failureLines);
  // What is known of each configured account (the inventory at start, refusals since) has this one home.
  const accounts = new AccountStanding(clock, (change) => reportAccountStanding(telemetry, log, change));
  const learnt = { ...sourcesLearnt(log, config.state.dir), paging, accountStanding: accounts };
  const collector = new Collector({
    jobs: buildJobs(config, learnt),
    http,
    limiters,
    sink,
    store,
    aside,
    writes: new RefusalReports(telemetry, log, clock, config.output.deadLetterPath),
    clock,
    log,
    horizonMs: config.state.horizon,
    initialLookbackMs: config.state.initialLookback,
    sinkRetryMs: config.output.retryFor,
    accounts,
    // Bounded by the quota, not the number of jobs: thousands of accounts hold thousands of jobs, not of passes.
    passesAtOnce: (api) => limiters.get(api).quota?.calls ?? PASSES_AT_ONCE_WITHOUT_QUOTA,
  });
  // The job state is the one record of job facts: /metrics, /healthz and the points read it when asked.
  telemetry.watchJobs(collector.state);
  const discovery =
    config.accounts === 'auto'
      ? new AccountDiscovery({
          config,
          shard: options.shard,
          http,
          limiters,
          collector,
          clock,
          log,
          learnt,
          conditions: telemetry,
        })
      : undefined;
  const rt: Runtime = {
    config,
    clock,
    collector,
    http,
    paging,
    tokens,
    limiters,
    watch,
    sink,
    store,
    aside,
    telemetry,
    discovery,
    accounts,
    onLimiterEvent(listener) {
      limiterListeners.add(listener);
      return () => limiterListeners.delete(listener);
    },
    async close() {
      await collector.stop();
      await aside.flush();
      await limiters.close();
      await journal.flush();
      await pagingMemory.flush();
      await sink.close();
      await store.close();
      await http.close();
    },
  };
  if (options.checkAccounts) {
    try {
      await checkConfiguredAccounts(config, http, accounts, log);
    } catch (err) {
      await rt.close();
      throw err;
    }
  }
  return rt;
}
