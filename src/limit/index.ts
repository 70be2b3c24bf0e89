export { Limiter, DEFAULT_DEADLINE_MS, DEFAULT_MAX_RETRY_AFTER_MS, type LimiterOptions } from './limiter.js';
export { LimiterSet } from './limiter-set.js';
export { SlidingWindow } from './sliding-window.js';
export { LimiterClosedError, LimiterDeadlineError } from './errors.js';
export { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
export { pollingSleeper, sleeperFor, sleepUntil } from './sleep.js';
export type {
  CallHistory,
  CallJournal,
  LimiterEvent,
  Priority,
  QuotaRule,
  QuotaSet,
  RunOptions,
  Sleeper,
} from './types.js';
