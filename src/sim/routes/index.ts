import type { ApiRoute } from './types.js';
import { dvrRoute } from './dvr.js';
import { metricsRoute } from './metrics.js';
import { statisticRoute } from './statistic.js';
import { streamstatRoute } from './streamstat.js';

/** One route module per API; the server dispatches on the path prefix. */
export const routes: ApiRoute[] = [metricsRoute, statisticRoute, streamstatRoute, dvrRoute];
