import { ApiError } from '../http/errors.js';
import { APIS } from '../spec/apis.js';
import { INVENTORY_REFUSAL } from '../spec/inventory.js';

/**
 * What a 401/403 says about the token, decided per API from what its spec documents (`APIS[api].refusal`):
 * - `token`: the text names a dead token (DVR `Token is expired`, statistics `token is invalid`);
 * - `possible`: a 401/403 whose text is not documented (metrics publishes none): it may be an expired token;
 * - undefined: not a refusal of the token (another status, or a text naming the accounts).
 * Both `token` and `possible` earn one renewal and one retry; a refusal of the renewed token is "no access".
 */
export type TokenRefusal = 'token' | 'possible';

export function tokenRefusalOf(err: unknown): TokenRefusal | undefined {
  if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) return undefined;
  const target = err.request.api;
  const rule = target === 'inventory' ? INVENTORY_REFUSAL : APIS[target].refusal;
  const text = (err.description ?? '').trim();
  if (rule.token.test(text)) return 'token';
  if (rule.notToken?.test(text)) return undefined;
  return 'possible';
}
