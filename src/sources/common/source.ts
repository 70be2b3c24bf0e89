import type { z } from 'zod';
import type { Logger } from '../../log.js';
import type { MeasurementSchema } from '../../points.js';
import type { ApiDescriptor, ApiName } from '../../spec/apis.js';
import type { CollectJob, JobContext } from './types.js';

/** What every source's settings hold: the config and the daemon read these of any source alike. */
export interface CommonSettings {
  enabled: boolean;
  /** Cron schedule of the daemon's passes. */
  schedule: string;
}

/**
 * A source's settings module, `src/sources/<api>/settings.ts`, as a Telegraf plug-in owns its config struct: `schema`
 * (the zod object of `jobs.<api>`: fields, defaults and the texts of docs/configuration.md), `check` (the rules beyond
 * shapes; a ParameterError names the field inside the section) and `reachMs` (how far behind the present its newest
 * collectable data lies; undefined when disabled or reading only the present).
 */
export interface SourceSettings<S extends CommonSettings> {
  schema: z.ZodType<S>;
  check(settings: S): void;
  reachMs(settings: S): number | undefined;
}

/** What a source's own knowledge is made with, once per runtime: where to log what it learns, the state dir. */
export interface SourceEnvironment {
  log?: Logger | undefined;
  stateDir?: string | undefined;
}

/**
 * One API as the collector sees it (Telegraf's input plug-in): `src/sources/<api>/index.ts` exports it and
 * src/sources/index.ts lists it. The config's `jobs` section, its rules, the schema document, sharding and the job
 * list are derived from that list; the spec's facts about the API stay in its descriptor (src/spec/apis.ts), which
 * the simulator reads too.
 */
export interface Source<N extends ApiName = ApiName, S extends CommonSettings = CommonSettings, L = undefined> {
  name: N;
  descriptor: ApiDescriptor;
  settings: SourceSettings<S>;
  /** Every measurement its jobs write (docs/schema.md). */
  measurements: readonly MeasurementSchema[];
  /**
   * Its jobs. `accounts`: made per account of the context, again as discovery finds more; `settings`: its settings
   * name what it reads with their accounts (DVR streams), so it is made once.
   */
  jobsPer: 'accounts' | 'settings';
  /**
   * What its jobs learn of the service and share for the whole runtime (its private state, e.g. the answer shape the
   * service uses): made once per runtime by the registry and handed to every call of `jobs`; without it each call
   * makes its own.
   */
  learns?(env: SourceEnvironment): L;
  jobs(settings: S, context: JobContext, learnt?: L): CollectJob[];
  /** The settings kept by a shard, where they name accounts themselves (`jobsPer: 'settings'`). */
  narrow?(settings: S, keep: (account: string) => boolean): S;
  /** Its jobs snapshot the present (the past cannot be read): capacity counts snapshots of them, not windows. */
  snapshots?: boolean;
}
