import type { ApiRoute } from '../types.js';

// Placeholder: replaced by the full route module.
export const metricsRoute: ApiRoute = {
  api: 'metrics',
  prefix: '/app/metrics/v1',
  handle: () => ({ status: 501, body: { status: 'Not Implemented', description: 'not implemented yet' } }),
};
