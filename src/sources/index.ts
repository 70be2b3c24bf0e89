import type { z } from 'zod';
import type { ApiName } from '../spec/apis.js';
import { dvrSource } from './dvr/index.js';
import { metricsSource } from './metrics/index.js';
import type { CommonSettings, Source } from './common/source.js';
import { statisticSource } from './statistic/index.js';
import { streamstatSource } from './streamstat/index.js';

export type { CommonSettings, Source } from './common/source.js';

/**
 * Every source, in the order of src/spec/apis.ts (Telegraf's `inputs.Add`): adding an API is one folder and one entry
 * here (and its descriptor in the spec). The config's `jobs` section, its rules, the schema document, sharding,
 * capacity and the job list derive from this list; a test holds it to the spec's API names, another composes a list
 * with a toy fifth source (test/sources/fifth-source.test.ts).
 */
const LIST = [metricsSource, statisticSource, streamstatSource, dvrSource] as const;

type Listed = (typeof LIST)[number];

/** Every source with its settings' type erased, for code that treats all alike (LIST keeps each one's type). */
// biome-ignore lint/suspicious/noExplicitAny: each source's own settings type is erased here on purpose
export const SOURCES: readonly Source<ApiName, any, any>[] = LIST;

/** The zod schema of each source's settings, by API name: the config's `jobs` section. */
export const SETTINGS_SCHEMAS = settingsSchemasOf(LIST) as {
  [S in Listed as S['name']]: S['settings']['schema'];
};

/** The zod schema of the settings of each source of a list, by its name (a test composes its own list). */
export function settingsSchemasOf(list: readonly { name: string; settings: { schema: z.ZodType } }[]) {
  return Object.fromEntries(list.map((s) => [s.name, s.settings.schema])) as Record<string, z.ZodType>;
}

/** Each source's settings, by API name, as the config holds them under `jobs`. */
export type SourcesSettings = { [N in keyof typeof SETTINGS_SCHEMAS]: z.output<(typeof SETTINGS_SCHEMAS)[N]> };

/** The source of an API. */
export function sourceOf(api: ApiName): Source<ApiName, CommonSettings> {
  return SOURCES.find((s) => s.name === api)!;
}
