import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import { configCommand } from '../../src/cli/config/config.js';
import { duration } from '../../src/config/fields/duration.js';
import { CONFIG_ENV, parseConfig } from '../../src/config/loader.js';
import {
  configReference,
  flow,
  REFERENCE_COMMAND,
  renderConfigReference,
  type FieldDoc,
} from '../../src/config/reference.js';

const sections = configReference();
const fields = sections.flatMap((s) => s.fields.map((f) => ({ ...f, variant: s.variant })));
const field = (path: string, variant?: string): FieldDoc & { variant?: string } => {
  const found = fields.find((f) => f.path === path && (variant === undefined || f.variant === variant));
  if (!found) throw new Error(`no field ${path} ${variant ?? ''}`);
  return found;
};

describe('docs/configuration.md', () => {
  it('is the generated text', async () => {
    const onDisk = await readFile('docs/configuration.md', 'utf8');
    expect(onDisk, `docs/configuration.md is out of date; regenerate it: ${REFERENCE_COMMAND}`).toBe(
      renderConfigReference(),
    );
  });
});

describe('the configuration reference', () => {
  it('describes every field and every section', () => {
    expect(fields.filter((f) => f.description === '').map((f) => f.path)).toEqual([]);
  });

  it('lists the defaults the validator applies', () => {
    // A minimal config parsed by the real loader, read back at each documented default's path.
    const parsed = parseConfig(
      { api: { baseUrl: 'http://x.example', token: 't' }, accounts: ['a'], sink: { type: 'file', path: '-' } },
      {},
    );
    // The config's own duration field parses the documented text (api.timeout would refuse a 31-day span default).
    const durationMs = (text: string) => duration.parse(text);
    const scalarDefaults = fields.filter(
      (f) =>
        f.default !== undefined &&
        !f.type.startsWith('object') &&
        !f.path.startsWith('sink.') &&
        !f.path.includes('[]'),
    );
    expect(scalarDefaults.length).toBeGreaterThan(20);
    for (const f of scalarDefaults) {
      const actual = f.path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], parsed);
      const documented = JSON.parse(f.default!) as unknown;
      const expected = f.type === 'duration' ? durationMs(documented as string) : documented;
      expect(actual, f.path).toEqual(expected);
    }
  });

  it('gives types, requiredness and variants as the schema has them', () => {
    expect(field('api.baseUrl')).toMatchObject({ type: 'URL', required: true, env: 'CDN_BASE_URL' });
    expect(field('api.timeout')).toMatchObject({ type: 'duration', default: '"30s"', required: false });
    expect(field('http.port')).toMatchObject({ type: 'integer 0–65535', required: false });
    expect(field('http.port').default).toBeUndefined();
    expect(field('accounts')).toMatchObject({
      type: '`auto` or non-empty list of non-empty string',
      env: 'CDN_ACCOUNTS',
    });
    expect(field('jobs.streamstat.granularity').type).toBe('one of `PT1M`, `PT5M`, `PT15M`, `PT1H`, `P1D`');
    expect(field('jobs.metrics.schedule').default).toBe('"*/1 * * * *"');
    expect(field('jobs.dvr.streams[].stream')).toMatchObject({ type: 'non-empty string', required: true });
    expect(sections.filter((s) => s.path === 'sink').map((s) => s.variant)).toEqual([
      'type: influx-v2',
      'type: influx-v1',
      'type: victoriametrics',
      'type: file',
    ]);
    expect(field('sink.token', 'type: influx-v2').env).toBe('INFLUX_TOKEN');
    expect(field('sink.database', 'type: influx-v1').env).toBe('INFLUX_DATABASE');
    expect(field('sink.path', 'type: file').env).toBeUndefined();
  });

  it('names every environment override the loader reads', () => {
    const documented = new Set(fields.map((f) => f.env).filter(Boolean));
    expect(CONFIG_ENV.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('fails loudly on a zod type it cannot render, naming the field', () => {
    const schema = z.object({ a: z.object({ weird: z.tuple([z.string()]) }) });
    expect(() => configReference(schema)).toThrow('config reference: no rendering at a.weird');
  });

  it('renders a map with its key and value types', () => {
    const [, a] = configReference(z.object({ a: z.object({ lags: z.record(z.string().min(1), z.number().int()) }) }));
    expect(a!.fields[0]!.type).toBe('map of non-empty string → integer');
  });

  it('tells a bound a number must exceed from one it may equal', () => {
    const [, a] = configReference(
      z.object({ a: z.object({ ratio: z.number().positive(), count: z.number().int().positive().max(10) }) }),
    );
    expect(a!.fields.map((f) => f.type)).toEqual(['number > 0', 'integer 1–10']);
  });

  it("reads the schema through zod's JSON Schema output, never zod's internals", () => {
    const configFiles = readdirSync('src/config').filter((name) => name.endsWith('.ts'));
    const readers = configFiles.filter((name) => /\b_def\b|\._zod\b/.test(readFileSync(`src/config/${name}`, 'utf8')));
    expect(readers).toEqual([]);
  });

  it('writes defaults as YAML flow (quoted strings, so a cron * is not an alias)', () => {
    expect(flow({ calls: 5, period: '1m' })).toBe('{ calls: 5, period: "1m" }');
    expect(flow([])).toBe('[]');
    expect(flow({})).toBe('{}');
  });
});

describe('cdn-collector config', () => {
  it('--reference --write writes the document; --json prints the sections', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'config-ref-'));
    try {
      await configCommand().parseAsync(['--reference', '--write', join(dir, 'c.md')], { from: 'user' });
      expect(await readFile(join(dir, 'c.md'), 'utf8')).toBe(renderConfigReference());
      const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        await configCommand().parseAsync(['--reference', '--json'], { from: 'user' });
        expect(JSON.parse(String(out.mock.calls[0]?.[0]))).toEqual(JSON.parse(JSON.stringify(sections)));
      } finally {
        out.mockRestore();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('without an action is a usage error (exit 2)', async () => {
    await expect(configCommand().parseAsync([], { from: 'user' })).rejects.toMatchObject({ exitCode: 2 });
  });
});
