/**
 * The stack takes either token source: a static token (CDN_TOKEN) or a login (CDN_USERNAME + CDN_PASSWORD), the way
 * the provider's docs log in. Compose passes each as `${VAR:-}` (empty when unset, which the collector reads as unset)
 * and `.env.example` shows both; the collector then sees exactly the source that was filled in.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfigFile } from '../../src/config/loader.js';

const TOKEN_VARS = ['CDN_TOKEN', 'CDN_USERNAME', 'CDN_PASSWORD'];

/** The collector service's environment after compose's interpolation of `${VAR:-}` and `${VAR:?…}` from `env`. */
function collectorEnv(env: Record<string, string>): Record<string, string> {
  const compose = parseYaml(readFileSync('docker-compose.yml', 'utf8')) as {
    services: { collector: { environment: Record<string, string> } };
  };
  return Object.fromEntries(
    Object.entries(compose.services.collector.environment).map(([key, value]) => {
      const ref = /^\$\{([A-Z_][A-Z0-9_]*)(:-|:\?[^}]*)?\}$/.exec(String(value));
      if (!ref) return [key, String(value)];
      const [, name, how] = ref;
      if (how?.startsWith(':?') && !env[name!]) throw new Error(`compose refuses to start: ${name} is required`);
      return [key, env[name!] ?? ''];
    }),
  );
}

function envExample(): Record<string, string> {
  const lines = readFileSync('.env.example', 'utf8')
    .split('\n')
    .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l));
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

describe('the stack logs in either way', () => {
  it('.env.example shows both token sources', () => {
    expect(Object.keys(envExample())).toEqual(expect.arrayContaining(TOKEN_VARS));
  });

  it('a login (CDN_USERNAME + CDN_PASSWORD, CDN_TOKEN left empty) starts the collector with that login', () => {
    const env = { ...envExample(), CDN_TOKEN: '', CDN_USERNAME: 'ops@example.com', CDN_PASSWORD: 'correct horse' };
    const config = loadConfigFile('config/collector.docker.yaml', collectorEnv(env));
    expect(config.api.username).toBe('ops@example.com');
    expect(config.api.token).toBeUndefined();
  });

  it('a static token (the login left empty) starts the collector with the token', () => {
    const config = loadConfigFile('config/collector.docker.yaml', collectorEnv(envExample()));
    expect(config.api.token).toBe(envExample().CDN_TOKEN);
    expect(config.api.username).toBeUndefined();
  });
});
