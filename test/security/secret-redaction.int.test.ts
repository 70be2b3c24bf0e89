import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../src/config/loader.js';
import { HttpClient } from '../../src/http/client.js';
import { DeadLetterFile } from '../../src/sink/dead-letter.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { systemClock } from '../../src/clock.js';
import { SetJobFacts } from '../helpers/job-facts.js';
import { runCli } from '../helpers/cli.js';
import { json, loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { capturedLogger } from '../helpers/captured-log.js';

/** Characters every encoding writes differently, around a core none changes; the core alone must not show either. */
const CORE = 'rEdAcTcOrE';
const TOKEN = `Tk ${CORE}~/+="&x`;
const PASSWORD = 'Pa55-userinfo-secret';
const DB_PASSWORD = 'db-passw0rd-secret';

function forms(secret: string, core = secret): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ t: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
    core,
  ];
}
const ALL_FORMS = [...forms(TOKEN, CORE), ...forms(PASSWORD), ...forms(DB_PASSWORD)];
function expectClean(text: string): void {
  for (const form of ALL_FORMS) expect(text.includes(form), `"${form}" in ${text.slice(0, 400)}`).toBe(false);
}

/**
 * Secrets are redacted from every string that leaves the process, wherever it came from: a server repeating the token
 * in an error or a schema-invalid body, a URL with `user:password@`, a secret pasted into another config field.
 */
describe('secrets never leave the process', () => {
  let server: LoopbackServer;

  beforeAll(async () => {
    server = await loopbackServer((req, res) => {
      if (req.url?.startsWith('/unauthorized'))
        return json(
          res,
          { status: 'Unauthorized', description: `token ${TOKEN} is invalid`, data: { echo: TOKEN } },
          401,
        );
      if (req.url?.startsWith('/schema')) return json(res, { status: TOKEN });
      return json(res, { status: 'boom', description: `no such path` }, 500);
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const withPassword = () => server.url.replace('http://', `http://operator:${encodeURIComponent(PASSWORD)}@`);

  it.each([
    ['a 401 body repeating the token', '/unauthorized'],
    ['a schema-invalid 200 body quoting the token (zod: received …)', '/schema'],
    ['a 500 on a base URL with user:password@', '/other'],
  ])('%s: not in the error (message, fields, body) nor in a trace log of it', async (_name, path) => {
    const http = new HttpClient({ baseUrl: withPassword(), token: TOKEN });
    const err = (await http
      .request({ api: 'metrics', method: 'GET', path, schema: z.object({ status: z.enum(['Completed']) }) })
      .catch((e: unknown) => e)) as Error & Record<string, unknown>;
    await http.close();
    expect(err).toBeInstanceOf(Error);
    const { log, text } = capturedLogger();
    log.error({ err, body: err.body, request: err.request }, `call failed: ${err.message}`);
    log.trace({ description: err.description, problem: err.problem, excerpt: err.bodyExcerpt }, 'details');
    expect(text()).toMatch(/call failed/);
    expectClean(text());
    expectClean(
      `${err.message} ${String(err.description)} ${String(err.problem)} ${String(err.bodyExcerpt)} ` +
        `${JSON.stringify(err.body)}`,
    );
    expectClean(JSON.stringify(err.request));
    expect(JSON.stringify(err.request)).not.toContain('operator:');
  });

  it('dead letters and /metrics label values: a registered secret is redacted', async () => {
    parseConfig(
      {
        api: { baseUrl: 'http://127.0.0.1:9', token: TOKEN },
        accounts: ['acme'],
        sink: { type: 'influx-v1', url: 'http://127.0.0.1:9', database: 'cdn', password: DB_PASSWORD },
      },
      {},
    );
    const dir = mkdtempSync(join(tmpdir(), 'redact-'));
    const file = new DeadLetterFile(join(dir, 'dl.jsonl'));
    await file.append({
      sink: 'influx-v1',
      status: 401,
      reason: `bad password ${DB_PASSWORD}`,
      lines: [`m,account=${TOKEN} v=1`],
    });
    const letters = readFileSync(join(dir, 'dl.jsonl'), 'utf8');
    expect(letters).toContain('"status":401');
    expectClean(letters);
    const telemetry = new Telemetry();
    SetJobFacts.watchedBy(telemetry, systemClock).lag(`metrics/${TOKEN}`, 1_000);
    const metrics = await telemetry.prometheus();
    expect(metrics).toContain('collector_job="metrics/');
    expectClean(metrics);
  });
});

/** The CLI's output (stderr errors, --check, --json) never shows a secret pasted into another config field. */
describe('secrets pasted into other config fields', () => {
  const dir = mkdtempSync(join(tmpdir(), 'redact-cli-'));
  const base = {
    api: { baseUrl: `http://operator:${encodeURIComponent(PASSWORD)}@127.0.0.1:9`, token: TOKEN },
    accounts: ['acme'],
    sink: { type: 'file', path: join(dir, 'out.lp') },
    state: { dir: join(dir, 'state') },
  };
  async function cli(args: string[], config: unknown): Promise<{ code: number | null; out: string }> {
    const path = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, JSON.stringify(config));
    const { code, stdout, stderr } = await runCli([...args.slice(0, 1), '--config', path, ...args.slice(1)]).exited;
    return { code, out: stdout + stderr };
  }

  it.each([
    ['log.level (zod quotes the received value)', { ...base, log: { level: TOKEN } }, /log\.level/],
    [
      'jobs.statistic.granularity (the rule quotes it)',
      { ...base, jobs: { statistic: { granularity: TOKEN } } },
      /jobs\.statistic\.granularity/,
    ],
    ['jobs.metrics.metrics', { ...base, jobs: { metrics: { metrics: [PASSWORD] } } }, /jobs\.metrics\.metrics/],
  ])(
    'run --check, the token in %s: exit 2, the field named, no secret printed',
    async (_name, config, field) => {
      const { code, out } = await cli(['run', '--check'], config);
      expect(code).toBe(2);
      expect(out).toMatch(field);
      expectClean(out);
    },
    20_000,
  );

  it('backfill --dry-run --json with the token pasted into accounts: the plan shows no secret', async () => {
    const { code, out } = await cli(
      ['backfill', '--from', '2026-11-20T00:00:00Z', '--to', '2026-11-20T01:00:00Z', '--dry-run', '--json'],
      {
        ...base,
        accounts: ['acme', TOKEN],
      },
    );
    expect(code).toBe(0);
    expect(out).toMatch(/"metrics\/acme"/);
    expectClean(out);
  }, 20_000);
});
