/**
 * The provider's APIs by name: the one list every other list of APIs derives from (limiters, schedules, simulator,
 * telemetry, CLI). See the descriptor per API for what is known about each.
 */
export const API_NAMES = ['metrics', 'statistic', 'streamstat', 'dvr'] as const;

export type ApiName = (typeof API_NAMES)[number];
