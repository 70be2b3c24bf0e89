import { loadConfigFile } from '../../src/config/loader.js';
import type { CollectorConfig } from '../../src/config/schema.js';

/** The variables the deploy configs read from the container's environment, with stand-in values. */
const DEPLOY_ENV = {
  CDN_BASE_URL: 'http://sim:8080',
  CDN_TOKEN: 't',
  CDN_ACCOUNTS: 'a',
  INFLUX_TOKEN: 't',
  INFLUX_ORG: 'o',
  INFLUX_BUCKET: 'b',
};

/** One of the shipped configs (`config/collector.docker.yaml`, …) as the collector loads it in its container. */
export function loadDeployConfig(file: string): CollectorConfig {
  return loadConfigFile(file, DEPLOY_ENV);
}
