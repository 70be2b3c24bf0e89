/**
 * `state.dir` when the config does not set it; also where `api` and `dvr`, which may run without a config, count
 * refused logins (relative to the working directory, as the config's own default is).
 */
export const DEFAULT_STATE_DIR = './state';
