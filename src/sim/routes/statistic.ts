import type { ApiRoute } from '../types.js';

// Placeholder: replaced by the full route module.
export const statisticRoute: ApiRoute = {
  api: 'statistic',
  prefix: '/app/statistic/v3',
  handle: () => ({ status: 501, body: { status: 'Not Implemented', description: 'not implemented yet' } }),
};
