import type { CollectorConfig } from '../../config/schema.js';
import { withoutUserinfo } from '../../secrets.js';
import { API_NAMES } from '../../spec/apis.js';

/** Where the sink writes, without credentials: a file path, or the server with its bucket or database. */
export function sinkTarget(sink: CollectorConfig['sink']): string {
  switch (sink.type) {
    case 'file':
      return sink.path === '-' ? 'file: stdout' : `file: ${sink.path}`;
    case 'influx-v2':
      return `influx-v2: ${withoutUserinfo(sink.url)} bucket ${sink.bucket} (org ${sink.org})`;
    case 'victoriametrics':
      return `victoriametrics: ${withoutUserinfo(sink.url)}`;
    case 'influx-v1':
      return (
        `influx-v1: ${withoutUserinfo(sink.url)} database ` +
        `${sink.database}${sink.retentionPolicy ? ` rp ${sink.retentionPolicy}` : ''}`
      );
  }
}

/**
 * The first thing `run` says, before any call (a user must see within a second what it is doing): which
 * file, which APIs, where points go, where state lives. No secrets: only names, URLs and paths.
 */
export function startupFields(config: CollectorConfig, configPath: string): Record<string, unknown> {
  return {
    config: configPath,
    baseUrl: withoutUserinfo(config.api.baseUrl),
    apis: API_NAMES.filter((api) => config.jobs[api].enabled),
    accounts: config.accounts === 'auto' ? 'auto (discovered from the token)' : config.accounts.length,
    sink: sinkTarget(config.sink),
    stateDir: config.state.dir,
  };
}
