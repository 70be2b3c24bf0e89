import type { ApiName, TokenRefusalRule } from './apis.js';

/**
 * The accounts of a token: `GET {base_url}/app/inventory/v1/accounts/` with the CDN-AUTH-TOKEN header, answering a
 * JSON array of `{"status": "active", "name": …, …}` (not in the API specs; shown by the vendor's docs and the public
 * Prometheus exporter of this API family, which keeps `status == "active"`). It is outside every API's quota.
 */
export const INVENTORY_ACCOUNTS_PATH = '/app/inventory/v1/accounts/';

/** The status of an account that is collected; others (closed, suspended) are not. */
export const ACTIVE_ACCOUNT_STATUS = 'active';

/** What a request names as its target: one of the four APIs, or the inventory (no quota, no gate). */
export type RequestTarget = ApiName | 'inventory';

/**
 * The vendor's page: the inventory refuses a token with 401 and no body. It reads no account, so a refusal with no
 * text (or one naming the token) is the token's.
 */
export const INVENTORY_REFUSAL: TokenRefusalRule = { status: 401, token: /^$|token\s+(is\s+)?(expired|invalid)/i };
