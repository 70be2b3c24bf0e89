import type { TokenRefusal } from '../failure.js';
import type { RequestTarget } from '../spec/inventory.js';
import { APIS } from '../spec/apis.js';
import { INVENTORY_REFUSAL } from '../spec/inventory.js';

/**
 * What an API's 401/403 says about the token, decided from what its spec documents (`APIS[api].refusal`): `token`
 * when the text names a dead token, `possible` when the text is not documented (metrics publishes none), undefined
 * when it is no refusal of the token (another status, or a text naming the accounts). See TokenRefusal.
 */
export function tokenRefusal(
  target: RequestTarget,
  status: number,
  description: string | undefined,
): TokenRefusal | undefined {
  if (status !== 401 && status !== 403) return undefined;
  const rule = target === 'inventory' ? INVENTORY_REFUSAL : APIS[target].refusal;
  const text = (description ?? '').trim();
  if (rule.token.test(text)) return 'token';
  if (rule.notToken?.test(text)) return undefined;
  return 'possible';
}
