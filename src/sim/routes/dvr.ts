import type { ApiRoute } from '../types.js';

// Placeholder: replaced by the full route module.
export const dvrRoute: ApiRoute = {
  api: 'dvr',
  prefix: '/app/dvr-net/v1',
  handle: () => ({ status: 501, body: { status: 'Not Implemented', description: 'not implemented yet' } }),
};
