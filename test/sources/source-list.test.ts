import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { routes } from '../../src/sim/routes/index.js';
import { SOURCES } from '../../src/sources/index.js';
import { accountJobs, buildJobs, type SourcesConfig } from '../../src/sources/registry.js';
import { API_NAMES, APIS } from '../../src/spec/apis.js';

/*
 * One list of sources (src/sources/index.ts): what keeps a list of APIs elsewhere derives from it, and the simulator,
 * which may not import the sources, routes every API of it.
 */

const config = (): SourcesConfig => {
  const jobs = configSchema.shape.jobs.parse({
    dvr: { streams: [{ account: 'acme', stream: 'live/main' }] },
  });
  return { accounts: ['acme', 'globex'], api: { pageSize: 1000 }, jobs };
};

describe('the list of sources', () => {
  it('holds one source per API of the spec, in its order, each with its descriptor', () => {
    expect(SOURCES.map((s) => s.name)).toEqual(API_NAMES);
    for (const source of SOURCES) expect(source.descriptor).toBe(APIS[source.name]);
  });

  it("is the config's jobs section: one key per source, each source's settings schema", () => {
    expect(Object.keys(configSchema.shape.jobs.unwrap().shape)).toEqual(SOURCES.map((s) => s.name));
    const shape = configSchema.shape.jobs.unwrap().shape;
    for (const source of SOURCES) expect(shape[source.name]).toBe(source.settings.schema);
  });

  it('is what the schema document lists, before the collector’s own measurements', () => {
    const names = SOURCES.flatMap((s) => s.measurements.map((m) => m.name));
    expect([...SCHEMA.keys()].slice(0, names.length)).toEqual(names);
  });

  it('makes the jobs: each source writes jobs of its API, account sources again for discovered accounts', () => {
    const jobs = buildJobs(config());
    expect(new Set(jobs.map((j) => j.api))).toEqual(new Set(API_NAMES));
    const perAccount = SOURCES.filter((s) => s.jobsPer === 'accounts').map((s) => s.name);
    expect(new Set(accountJobs(config(), ['initech']).map((j) => j.api))).toEqual(new Set(perAccount));
  });

  it('has a route of the simulator for every API', () => {
    expect(routes.map((r) => r.api).sort()).toEqual(SOURCES.map((s) => s.name).sort());
    for (const route of routes) expect(route.prefix).toBe(APIS[route.api].prefix);
  });
});
