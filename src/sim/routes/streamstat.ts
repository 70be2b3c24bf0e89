import type { ApiRoute } from '../types.js';

// Placeholder: replaced by the full route module.
export const streamstatRoute: ApiRoute = {
  api: 'streamstat',
  prefix: '/app/streamstat/v2',
  handle: () => ({ status: 501, body: { status: 'Not Implemented', description: 'not implemented yet' } }),
};
