import type { Clock } from '../../clock.js';
import type { World } from './world.js';

/** What the model and the routes answer from: the world, the clock and the behaviour chosen where specs are silent. */
export interface SimContext {
  world: World;
  clock: Clock;
  settings: SimSettings;
}

/** Behaviour the specs leave open ("not shown"); each choice is documented where it is made and can be changed. */
export interface SimSettings {
  /** Statistics data lag: values of a minute keep growing until this long after it ends. Spec: up to one hour. */
  statisticLagMs: number;
  /** Stream view statistics lag (not shown in the spec; chosen: 5 minutes). */
  streamstatLagMs: number;
  /** Default and maximum `limit` of the grouping endpoints (not shown; chosen 100 and 1000). */
  defaultLimit: number;
  maxLimit: number;
  /** DVR nodes on which deletions fail (HTTP 500 with failed_hosts). */
  failingDvrNodes: string[];
  /** DVR depth (dvr.window) in seconds; unit not shown, chosen: seconds. */
  dvrWindowSec: number;
  /** `seed`: the shapes of the specs' examples; `real`: as the real service answers (see real-shapes.ts). */
  shapes: 'seed' | 'real';
  /**
   * Stream views with `granularity`: `buckets` (default; the shape is not shown, chosen like statistic v3 /times) or
   * `flat`: `granularity` is checked but ignored, as public clients' flat grouped shape suggests.
   */
  streamstatShape: 'buckets' | 'flat';
  /** The description of every metrics 403 (the real text is not published; the spec's meaning column by default). */
  metricsRefusal: string;
  /**
   * Accounts the metrics API refuses to every token (403 with `metricsRefusal`, the one documented text) while the
   * inventory and the other APIs serve them: an account without access to that API.
   */
  metricsDeniedAccounts: string[];
  /** Whether `GET /app/inventory/v1/accounts/` exists (false: 404, as on a white label without it). */
  inventory: boolean;
  /**
   * The longest metrics period, in minutes: 10 by spec 001, 1 by another stored copy of the vendor's page ("data is
   * returned for a 1-minute period"). A longer one is answered 422 with a text stating the limit (metricsPeriodText).
   */
  metricsMaxPeriodMinutes: number;
  /**
   * Content-Encoding of the answers (content-encoding.ts): '' none (default), `auto` gzip when the request accepts it,
   * or codings applied in order whatever it asked (`gzip`, `deflate`, `br`, `gzip, br`; an unknown name is declared
   * over the plain body).
   */
  contentEncoding: string;
}
