/**
 * The login that issues tokens. Not in the specs ("Obtaining the token: not shown"); public clients of this API family
 * show `POST {base_url}/app/oauth/v1/token/` with the account's username and password, answering
 * `{"status": 200, "person_id": …, "token": "…", "lifetime": 21599000}` (lifetime in ms, ~6 h).
 */
export const LOGIN_PATH = '/app/oauth/v1/token/';

/** The lifetime public clients show: 21 599 000 ms, a second short of six hours. */
export const LOGIN_LIFETIME_MS = 21_599_000;
