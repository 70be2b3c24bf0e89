import { HOUR } from '../time.js';

/**
 * The login that issues tokens. The API specs do not show it ("Obtaining the token: not shown"); the vendor's OAuth
 * page (and its white-label copies) and the public clients of this API family show
 * `POST {base_url}/app/oauth/v1/token/` with a form body `username=…&password=…`, answering
 * `{"status": 200, "person_id": …, "token": "cdn1_…", "lifetime": 21599000}` — lifetime in ms, the time left until the
 * token expires — and 400/401/403/500/503 with no body when it refuses. Seven wrong passwords ban the account for
 * 3 hours; the login allows 20 requests a minute.
 */
export const LOGIN_PATH = '/app/oauth/v1/token/';

/** The lifetime of a fresh login's token: 21 599 000 ms, a second short of six hours. */
export const LOGIN_LIFETIME_MS = 21_599_000;

/**
 * How the credentials travel. The vendor's curl example and every public client send a form
 * (`application/x-www-form-urlencoded`), and the service reads the body as a form whatever the header says: a JSON
 * body is answered 400. `json` stays selectable (`api.loginBody`) only for a gateway in front that wants it.
 */
export const LOGIN_BODY_FORMATS = ['form', 'json'] as const;
export type LoginBodyFormat = (typeof LOGIN_BODY_FORMATS)[number];
export const DEFAULT_LOGIN_BODY: LoginBodyFormat = 'form';

/** The service's rules around the login: wrong passwords in a row that ban the account, for how long, and its rate. */
export const BAN_AFTER_REFUSALS = 7;
export const BAN_MS = 3 * HOUR;
export const LOGINS_PER_MINUTE = 20;
