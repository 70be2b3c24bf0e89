/**
 * undici, through its public entry point only: an Agent (the keep-alive pool) and `request`. Loading its modules by
 * path saved some megabytes of RSS (fetch, WebSocket and the caches load with the index) but tied the daemon to
 * undici's private layout, which a minor release may change; every user imports undici through this module.
 */
export { Agent, Dispatcher, request } from 'undici';
