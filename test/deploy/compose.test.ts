import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

/**
 * docker-compose.yml and docker-compose.sim.yml against the Compose Specification's JSON schema, plus the rules of
 * the deployment: health checks everywhere, start order on health, secrets only from the environment.
 *
 * test/deploy/compose-spec.json is compose-spec/compose-spec `schema/compose-spec.json`, as shipped by the npm
 * package dclint 3.1.0 (`schemas/compose.schema.json`, MIT); refresh it from either when Compose adds keys.
 */
type Obj = Record<string, unknown>;
interface Service {
  build?: string | { context?: string };
  image?: string;
  environment?: Record<string, string> | string[];
  command?: string[] | string;
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: Record<string, { condition?: string }> | string[];
  volumes?: string[];
  hostname?: string;
  ports?: string[];
}
interface ComposeFile {
  services: Record<string, Service>;
}

const FILES = ['docker-compose.yml', 'docker-compose.sim.yml'];
const text = (f: string) => readFileSync(f, 'utf8');
const compose = (f: string) => parseYaml(text(f)) as ComposeFile;
const SECRET_KEY = /TOKEN|PASSWORD|SECRET/i;
/**
 * `${VAR}`, `${VAR:?message}` or `${VAR:-}`: from the environment (required, or empty when unset: one of two token
 * sources), never a default that could be a literal secret.
 */
const FROM_ENV = /^\$\{[A-Z_][A-Z0-9_]*(:\?[^}]*|:-)?\}$/;

function validator(): ValidateFunction {
  const schema = JSON.parse(text('test/deploy/compose-spec.json')) as Obj;
  // The schema declares draft-07 by an https URL Ajv does not know; draft-07 is Ajv's default dialect anyway.
  delete schema.$schema;
  return new Ajv({ strict: false, allErrors: true }).compile(schema);
}

function env(service: Service): Record<string, string> {
  const e = service.environment ?? {};
  return Array.isArray(e) ? Object.fromEntries(e.map((kv) => [kv.split('=')[0]!, kv.slice(kv.indexOf('=') + 1)])) : e;
}

function envExample(): Record<string, string> {
  const lines = text('.env.example')
    .split('\n')
    .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l));
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

describe('docker compose files', () => {
  const validate = validator();

  for (const file of FILES) {
    it(`${file} validates against the Compose Specification schema`, () => {
      const ok = validate(compose(file));
      expect(validate.errors ?? [], file).toEqual([]);
      expect(ok).toBe(true);
    });
  }

  it('the schema check can fail: an unknown depends_on condition and an unknown service key are refused', () => {
    const broken = compose('docker-compose.yml');
    (broken.services.collector!.depends_on as Record<string, { condition: string }>).influxdb!.condition = 'service_up';
    (broken.services.grafana as Obj).healtcheck = { test: ['CMD', 'true'] };
    expect(validate(broken)).toBe(false);
    const paths = (validate.errors ?? []).map((e) => e.instancePath);
    expect(paths).toEqual(
      expect.arrayContaining(['/services/collector/depends_on/influxdb/condition', '/services/grafana']),
    );
  });

  it('runs InfluxDB 2, Grafana and the collector; the sim override adds the simulator', () => {
    expect(Object.keys(compose('docker-compose.yml').services).sort()).toEqual(['collector', 'grafana', 'influxdb']);
    expect(Object.keys(compose('docker-compose.sim.yml').services).sort()).toEqual(['collector', 'sim']);
    expect(compose('docker-compose.yml').services.influxdb!.image).toMatch(/^influxdb:2/);
    expect(env(compose('docker-compose.yml').services.influxdb!)).toMatchObject({ DOCKER_INFLUXDB_INIT_MODE: 'setup' });
  });

  it('every service has a health check, and every dependency waits for health', () => {
    const problems: string[] = [];
    const base = compose('docker-compose.yml').services;
    const sim = compose('docker-compose.sim.yml').services;
    for (const [name, s] of Object.entries({ ...base, sim: sim.sim! })) {
      if (!s.healthcheck?.test || s.healthcheck.disable) problems.push(`${name}: no healthcheck`);
    }
    for (const [name, s] of [...Object.entries(base), ...Object.entries(sim)]) {
      if (Array.isArray(s.depends_on)) problems.push(`${name}: depends_on without a condition`);
      for (const [dep, c] of Object.entries(s.depends_on ?? {})) {
        if (c.condition !== 'service_healthy') problems.push(`${name} → ${dep}: ${c.condition}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the sim listens on all interfaces with the token the collector sends', () => {
    const sim = compose('docker-compose.sim.yml').services;
    expect(sim.sim!.command).toEqual(expect.arrayContaining(['sim', '--host', '0.0.0.0', '--port', '8080']));
    const token = (sim.sim!.command as string[])[(sim.sim!.command as string[]).indexOf('--token') + 1];
    expect(token).toBe(env(sim.collector!).CDN_TOKEN);
    expect(env(sim.collector!).CDN_USERNAME).toBe(''); // a login in .env does not reach the simulator
    expect(env(sim.collector!).CDN_BASE_URL).toBe('http://sim:8080');
  });

  it('takes every secret from the environment: no literal token or password in any compose file', () => {
    const problems: string[] = [];
    for (const file of FILES) {
      for (const [name, s] of Object.entries(compose(file).services)) {
        for (const [key, value] of Object.entries(env(s))) {
          if (SECRET_KEY.test(key) && !FROM_ENV.test(String(value)))
            problems.push(`${file} ${name}.${key}: ${String(value)}`);
        }
        const cmd = Array.isArray(s.command) ? s.command : [];
        const i = cmd.indexOf('--token');
        if (i >= 0 && !FROM_ENV.test(cmd[i + 1] ?? '')) problems.push(`${file} ${name}: --token ${cmd[i + 1]}`);
      }
      // The placeholders of .env.example must not have been pasted in either.
      for (const [key, value] of Object.entries(envExample())) {
        if (SECRET_KEY.test(key) && value !== '' && text(file).includes(value)) {
          problems.push(`${file}: contains the value of ${key}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('every variable the compose files and the Grafana datasource use is documented in .env.example', () => {
    const documented = new Set(Object.keys(envExample()));
    const sources = [...FILES, 'config/grafana/provisioning/datasources/influxdb.yaml'];
    const used = new Set(sources.flatMap((f) => [...text(f).matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!)));
    expect([...used].filter((v) => !documented.has(v))).toEqual([]);
    for (const key of [
      'CDN_TOKEN',
      'CDN_BASE_URL',
      'CDN_ACCOUNTS',
      'INFLUX_TOKEN',
      'INFLUX_ORG',
      'INFLUX_BUCKET',
      'GRAFANA_ADMIN_PASSWORD',
    ]) {
      expect(documented, key).toContain(key);
    }
  });

  it('builds the collector (and the sim) from this directory and mounts the config where the image reads it', () => {
    for (const file of FILES) {
      for (const [name, s] of Object.entries(compose(file).services)) {
        if (s.build === undefined) continue;
        expect(typeof s.build === 'string' ? s.build : s.build.context, `${file} ${name}`).toBe('.');
      }
    }
    const collector = compose('docker-compose.yml').services.collector!;
    expect(collector.build).toBeDefined();
    expect(collector.volumes).toContain('./config/collector.docker.yaml:/etc/cdn-collector/collector.yaml:ro');
    expect(compose('docker-compose.sim.yml').services.collector!.volumes).toContain(
      './config/collector.sim.yaml:/etc/cdn-collector/collector.yaml:ro',
    );
    expect(collector.volumes!.some((v) => v.endsWith(':/var/lib/cdn-collector'))).toBe(true);
  });

  it('Grafana gets the variables its provisioned data source expands', () => {
    const grafana = env(compose('docker-compose.yml').services.grafana!);
    const datasource = text('config/grafana/provisioning/datasources/influxdb.yaml');
    for (const [, v] of datasource.matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)) expect(grafana, v).toHaveProperty(v!);
  });

  it('publishes every port on 127.0.0.1 only: Grafana, like InfluxDB and the collector, is not on the network', () => {
    const published = FILES.flatMap((file) =>
      Object.entries(compose(file).services).flatMap(([name, s]) => (s.ports ?? []).map((p) => `${file} ${name} ${p}`)),
    );
    expect(published.map((p) => p.split(' ')[1])).toEqual(expect.arrayContaining(['influxdb', 'grafana', 'collector']));
    expect(published.filter((p) => !p.split(' ')[2]!.startsWith('127.0.0.1:'))).toEqual([]);
  });

  it('ships no usable Grafana admin password: .env.example leaves it empty, compose refuses to start without', () => {
    expect(envExample()).toHaveProperty('GRAFANA_ADMIN_PASSWORD', '');
    // `:?` refuses an empty value as well as an unset one.
    expect(env(compose('docker-compose.yml').services.grafana!).GF_SECURITY_ADMIN_PASSWORD).toMatch(
      /^\$\{GRAFANA_ADMIN_PASSWORD:\?[^}]+\}$/,
    );
    // The documented simulator commands run with .env.example, so they set the password first.
    for (const doc of ['README.md', 'docs/deploy.md']) {
      const lines = text(doc).split('\n');
      const start = lines.findIndex((l) => l.includes('--env-file .env.example'));
      expect(start, doc).toBeGreaterThan(0);
      expect(lines.slice(0, start).join('\n'), doc).toMatch(/export GRAFANA_ADMIN_PASSWORD="\$\(openssl rand/);
    }
  });

  it('gives the collector a stable host name, so its state.lock is taken over after a container re-create', () => {
    expect(compose('docker-compose.yml').services.collector!.hostname).toMatch(/^[a-z][a-z0-9-]*$/);
  });
});
