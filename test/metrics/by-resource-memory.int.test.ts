import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { JsonListSplitter } from '../../src/http/json-list.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { MetricsClient } from '../../src/sources/metrics/client.js';
import { metricsJobs } from '../../src/sources/metrics/jobs.js';
import { byResourceToPoints } from '../../src/sources/metrics/points.js';
import { schema as metricsSettings } from '../../src/sources/metrics/settings.js';
import { useSimulator } from '../helpers/sim.js';

const RESOURCES = 2_000;
const WINDOW = 10 * 60_000;

/**
 * The by-resource answer grows with the account (about 1.7 KB a resource: 8.8 MB for 5,000), and reading it whole
 * held its text, its parse tree and its validated copy at once. Read resource by resource, what is parsed at once is
 * one resource, whatever the account's size: measured structurally, by the largest text handed to JSON.parse.
 */
describe('the by-resource breakdown is read one resource at a time', () => {
  const s = useSimulator({ quotas: NO_QUOTAS, world: { accounts: 1, resourcesPerAccount: RESOURCES } });
  let http: HttpClient;
  let parsed: number[];
  beforeEach(() => {
    http = new HttpClient({ baseUrl: s.sim.url, token: s.sim.token });
    parsed = [];
    const parse = JSON.parse;
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parsed.push(text.length);
      return parse(text, reviver);
    });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await http.close();
  });

  it(`a window of ${RESOURCES} resources parses no text larger than one resource, yields the same points`, async () => {
    const account = s.sim.accounts[0]!;
    const job = metricsJobs(metricsSettings.parse({}), { accounts: [account], pageSize: 1000 }).find((j) =>
      j.key.startsWith('metrics_resource/'),
    )!;
    const from = Math.floor(s.sim.clock.now() / WINDOW) * WINDOW - 3 * WINDOW;
    const points = await job.collect({ from, to: from + WINDOW }, http);
    const largest = Math.max(...parsed);
    expect(points).toHaveLength(RESOURCES);
    // One resource is about 1.7 KB of JSON; the whole answer is over 3 MB.
    expect(largest).toBeLessThan(16 * 1024);

    vi.restoreAllMocks();
    const whole = await new MetricsClient(http).byResource({ account, start: from, end: from + WINDOW });
    expect(JSON.stringify(whole).length).toBeGreaterThan(RESOURCES * 1024);
    expect(points).toEqual(byResourceToPoints(whole, from));
  });
});

describe('JsonListSplitter', () => {
  const BODY = JSON.stringify({
    status: 'OK',
    note: 'data',
    nested: { data: [1, 2], 'a]b': '[{"' },
    data: [{ a: 'x],}{"\\', b: [1, { c: null }], 'Ви"део': 'ü' }, 7, 'str,]', true, null, [], {}],
    account: 'acme',
  });

  function split(chunkSize: number): { elements: unknown[]; envelope: unknown } {
    const elements: unknown[] = [];
    const splitter = new JsonListSplitter('data', (text) => elements.push(JSON.parse(text)));
    const bytes = Buffer.from(BODY);
    for (let i = 0; i < bytes.length; i += chunkSize) splitter.push(bytes.subarray(i, i + chunkSize));
    return { elements, envelope: JSON.parse(splitter.end()) };
  }

  for (const chunkSize of [1, 2, 3, 7, 64, 100_000]) {
    it(`hands on each element of the top-level list and keeps the rest, in chunks of ${chunkSize} bytes`, () => {
      const body = JSON.parse(BODY) as Record<string, unknown>;
      expect(split(chunkSize)).toEqual({ elements: body.data, envelope: { ...body, data: [] } });
    });
  }

  it('a body cut off inside the list leaves an envelope that is not JSON', () => {
    const splitter = new JsonListSplitter('data', () => {});
    splitter.push(Buffer.from('{"status":"OK","data":[{"a":1},{"b"'));
    expect(() => JSON.parse(splitter.end())).toThrow();
  });
});
