import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { settingsProblems } from '../../src/config/rules.js';
import type { Requester } from '../../src/contracts/requester.js';
import type { RequestSpec } from '../../src/http/client.js';
import { renderSchemaJson, renderSchemaMarkdown } from '../../src/schema/schema-doc.js';
import { schemaOf } from '../../src/schema/schema.js';
import { SOURCES, settingsSchemasOf } from '../../src/sources/index.js';
import { sourceRegistry, type ListConfig } from '../../src/sources/registry.js';
import { ToyDispatcher, toyClient } from '../fixtures/toy-source/dispatcher.js';
import { TOY, toySource } from '../fixtures/toy-source/index.js';

/*
 * design.md's worked example of a fifth API: a folder (test/fixtures/toy-source/) and one entry in a list of sources.
 * Everything else the collector knows of an API derives from the list: its config section, its jobs, its schema.
 */

const LIST = [...SOURCES, toySource];
const jobsSchema = z.object(settingsSchemasOf(LIST)).strict();

const config = (toy: unknown = {}): ListConfig => ({
  accounts: ['acme', 'globex'],
  api: { pageSize: 1000 },
  jobs: jobsSchema.parse({ dvr: { streams: [{ account: 'acme', stream: 'live/main' }] }, toy }),
});

/** A Requester (the contract a source calls) answering the toy API from memory and keeping what was asked. */
function toyRequester(requests: number): Requester & { asked: RequestSpec<unknown>[] } {
  const asked: RequestSpec<unknown>[] = [];
  return {
    asked,
    async request<T>(spec: RequestSpec<T>) {
      asked.push(spec as RequestSpec<unknown>);
      const request = { method: spec.method, url: spec.path, api: spec.api };
      return { status: 200, headers: {}, body: spec.schema.parse({ requests }), request } as never;
    },
  };
}

describe('a fifth source: one folder and one list entry', () => {
  it('has its config section: defaults filled, a bad field named by its path', () => {
    const jobs = config().jobs as Record<string, { window: number; enabled: boolean }>;
    expect(jobs.toy).toMatchObject({ enabled: true, window: 5 * 60_000 });
    const bad = jobsSchema.safeParse({ toy: { windw: '5m' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['toy']);
    expect(() => toySource.settings.check({ ...jobs.toy, window: 90_000 } as never)).toThrow(
      expect.objectContaining({ code: 'CDN_ERR_PARAMETER' }),
    );
  });

  it("has its section checked by the config's rules, a problem named by its whole path", () => {
    expect(settingsProblems(LIST, config().jobs)).toEqual([]);
    const problems = settingsProblems(LIST, config({ window: '90s' }).jobs);
    expect(problems.map((p) => p.field)).toEqual(['jobs.toy.window']);
  });

  it('has its jobs planned: one per account, beside the four real APIs', () => {
    const registry = sourceRegistry(LIST);
    const jobs = registry.buildJobs(config());
    const toyJobs = jobs.filter((j) => j.api === TOY);
    expect(toyJobs.map((j) => j.key)).toEqual(['toy/acme', 'toy/globex']);
    expect(toyJobs[0]?.rule).toEqual({ stepMs: 5 * 60_000, delayMs: 60_000, maxSpanMs: 5 * 60_000 });
    expect(new Set(jobs.map((j) => j.api))).toEqual(new Set(LIST.map((s) => s.name)));
    expect(
      registry
        .accountJobs(config(), ['initech'])
        .filter((j) => j.api === TOY)
        .map((j) => j.key),
    ).toEqual(['toy/initech']);
    expect(registry.buildJobs(config({ enabled: false })).some((j) => j.api === TOY)).toBe(false);
    const auto = { ...config(), accounts: 'auto' as const };
    expect(
      registry
        .daemonJobs(auto, ['initech'])
        .filter((j) => j.api === TOY)
        .map((j) => j.key),
    ).toEqual(['toy/initech']);
  });

  it('collects its points through the Requester a source calls', async () => {
    const [job] = sourceRegistry(LIST)
      .buildJobs(config())
      .filter((j) => j.api === TOY);
    const http = toyRequester(42);
    const span = { from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 1, 0, 5) };
    const points = await job!.collect(span, http);
    expect(points).toEqual([
      { measurement: 'cdn_toy', tags: { account: 'acme' }, fields: { requests: 42 }, time: span.from },
    ]);
    expect(http.asked.map((r) => [r.api, r.path, r.query?.account])).toEqual([['toy', '/app/toy/v1/requests', 'acme']]);
  });

  it('collects its points over HTTP: the HttpClient, answered by an undici Dispatcher of the toy API', async () => {
    const [, job] = sourceRegistry(LIST)
      .buildJobs(config())
      .filter((j) => j.api === TOY);
    const dispatcher = new ToyDispatcher(7);
    const http = toyClient(dispatcher);
    const span = { from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 1, 0, 5) };
    const points = await job!.collect(span, http);
    expect(points).toEqual([
      { measurement: 'cdn_toy', tags: { account: 'globex' }, fields: { requests: 7 }, time: span.from },
    ]);
    expect(dispatcher.exchanges).toHaveLength(1);
    const sent = new URL(dispatcher.exchanges[0]!.path, 'http://toy.invalid');
    expect([sent.pathname, sent.searchParams.get('account'), dispatcher.exchanges[0]!.token]).toEqual([
      '/app/toy/v1/requests',
      'globex',
      'cdn1_toy',
    ]);
  });

  it('has its measurement in the schema document, after the real sources’ and before the collector’s own', () => {
    const schema = schemaOf(LIST);
    const names = [...schema.keys()];
    const real = SOURCES.flatMap((s) => s.measurements.map((m) => m.name));
    expect(names.slice(0, real.length + 1)).toEqual([...real, 'cdn_toy']);
    expect(JSON.parse(renderSchemaJson(schema)).map((m: { name: string }) => m.name)).toContain('cdn_toy');
    expect(renderSchemaMarkdown(schema)).toContain('## `cdn_toy`');
  });

  it('leaves the real list untouched: the runtime’s registry has no toy', () => {
    expect(SOURCES.map((s) => s.name)).not.toContain(TOY);
    expect(sourceRegistry(SOURCES).sources).toBe(SOURCES);
  });
});
