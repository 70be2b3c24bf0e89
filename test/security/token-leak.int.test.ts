import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_KINDS, type FaultPlan } from '../../src/sim/faults.js';
import { configQuotasOf } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { perApi } from '../../src/spec/apis.js';
import { HOUR } from '../../src/time.js';
import { runCli } from '../helpers/cli.js';
import { FAST_QUOTAS } from '../helpers/collector.js';
import { startFakeWriteServer } from '../sink/fake-server.js';

/** Characters that every encoding writes differently (space, ~, /, +, =, &), around a core that none changes. */
const CORE = 'sEcReTcOrE';
const TOKEN = `T0k ${CORE}~/+=&x`;
const OTHER_TOKEN = `unknown ${CORE}2~/+`;
const FAULTS: FaultPlan = { rate: 0.1, kinds: [...FAULT_KINDS], slowMs: 600, retryAfterSec: 1 };

/** Every form a token could take in text: raw, URI component, form-encoded (URLSearchParams), and its core alone. */
function forms(token: string): string[] {
  return [token, encodeURIComponent(token), new URLSearchParams({ t: token }).toString().slice(2), CORE];
}

/** Text of every file below `dir`. */
function filesBelow(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/**
 * The API token never reaches a log line (at the most verbose levels), an error message, a dead letter, a state file,
 * `--json` output or the database — with faults on every API, failing jobs, and the token in a header or the query.
 */
describe('the token never leaks', () => {
  let sim: Simulator;
  let influx: Awaited<ReturnType<typeof startFakeWriteServer>>;
  const to = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
  const range = ['--from', new Date(to - HOUR).toISOString(), '--to', new Date(to).toISOString()];

  beforeAll(async () => {
    const faults = perApi(() => FAULTS);
    // No inventory: the account the token does not cover then starts (the inventory would refuse it at start) and
    // its jobs fail with API errors.
    sim = await startSimulator({ token: TOKEN, quotas: FAST_QUOTAS, faults, settings: { inventory: false } });
    // The database refuses stream views for good, so dead letters are written.
    influx = await startFakeWriteServer((req) =>
      req.body.includes('cdn_views') ? { status: 400, body: '{"error":"unable to parse: refused"}' } : { status: 204 },
    );
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), influx?.close()]);
  });

  for (const [placement, level] of [
    ['header', 'trace'],
    ['query', 'debug'],
  ] as const) {
    it(`token in the ${placement}, log level ${level}: backfill, --json plan, one daemon pass`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'leak-'));
      const config = join(dir, 'collector.yaml');
      writeFileSync(
        config,
        JSON.stringify({
          api: { baseUrl: sim.url, token: TOKEN, tokenPlacement: placement, timeout: '400ms' },
          // An account the token does not cover and a stream that does not exist: jobs fail with API errors.
          accounts: [...sim.accounts, 'stranger'],
          quotas: configQuotasOf(sim.quota),
          jobs: { dvr: { streams: [...sim.streams, { account: 'acme', stream: 'no-such-stream' }] } },
          sink: { type: 'influx-v1', url: influx.url, database: 'cdn', username: 'u', password: 'db-password' },
          output: { deadLetterPath: join(dir, 'state', 'dead-letters.jsonl') },
          state: { dir: join(dir, 'state'), initialLookback: '30m' },
          log: { level },
        }),
      );
      const outputs: string[] = [];
      for (const args of [
        ['backfill', '--config', config, ...range, '--dry-run', '--json'],
        ['backfill', '--config', config, ...range],
        ['run', '--config', config, '--once'],
      ]) {
        const { stdout, stderr } = await runCli(args).exited;
        outputs.push(stdout, stderr);
      }
      const files = filesBelow(join(dir, 'state'));
      const everything = [
        ...outputs,
        ...files.map((f) => f.text),
        ...influx.requests.map((r) => r.body + JSON.stringify(r.headers)),
      ];

      // Not vacuous: failures were reported with their (redacted) request, and lines were dead-lettered.
      const text = outputs.join('\n');
      expect(text).toMatch(/HTTP 4\d\d/);
      if (placement === 'query') expect(text).toContain('cdnauthtoken=***');
      expect(files.some((f) => f.path.endsWith('dead-letters.jsonl') && f.text.includes('cdn_views'))).toBe(true);
      for (const form of forms(TOKEN)) {
        for (const chunk of everything) expect(chunk.includes(form), `"${form}" in ${chunk.slice(0, 300)}`).toBe(false);
      }
    }, 60_000);
  }

  it('dvr get: neither the JSON output nor the auth error shows the token', async () => {
    const { account, stream } = sim.streams[0]!;
    sim.faults.set('dvr', undefined);
    const ok = await runCli(['dvr', 'get', account, stream, '--json'], { CDN_BASE_URL: sim.url, CDN_TOKEN: TOKEN })
      .exited;
    const denied = await runCli([
      'dvr',
      'get',
      account,
      stream,
      '--json',
      '--base-url',
      sim.url,
      '--token',
      OTHER_TOKEN,
    ]).exited;
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ stream_name: expect.any(String) });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/HTTP 40[13]/);
    for (const form of [...forms(TOKEN), ...forms(OTHER_TOKEN)]) {
      expect(ok.stdout + ok.stderr + denied.stdout + denied.stderr).not.toContain(form);
    }
  });
});
