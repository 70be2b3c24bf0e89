import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { loadedModuleNames as loaded } from '../helpers/loaded-modules.js';
import { useSimulator } from '../helpers/sim.js';

/**
 * Start-up: help and argument errors load commander and the command definitions, not what a
 * command does. The simulator's flag grammar (sim/faults, sim/model/rng) is part of `sim`'s definition.
 */
const HEAVY = new RegExp(
  [
    /^(undici|pino|pino-pretty|zod|@influxdata\/.*|luxon|node-cron|yaml|cli-table3|cli-progress|p-limit)$/,
    /^dist\/(app|collector|backfill)\//,
    /^dist\/(sources|sink|telemetry|state|verify|config\/schema|config\/loader)\b/,
    /^dist\/sim\/(?!faults\.js$|model\/rng\.js$)/,
  ]
    .map((r) => r.source)
    .join('|'),
);

describe('what the CLI loads (a real process with a module-loader hook)', () => {
  const cases = [
    ['--help'],
    ['run', '--help'],
    ['backfill', '--help'],
    ['dvr', 'get', '--help'],
    ['api', '--help'],
    ['sim', '--help'],
    ['run', '--no-such-flag'],
  ];
  it.each(cases.map((args) => [args.join(' '), args] as const))(
    '%s: commander and the command definitions only',
    async (_, args) => {
      const names = await loaded(args);
      expect(names).toContain('commander');
      expect(names).toContain('dist/cli/run/run.js');
      expect(names.filter((name) => HEAVY.test(name))).toEqual([]);
    },
  );

  it('a command that runs loads its implementation (the hook sees deps: the check above can fail)', async () => {
    const names = await loaded(['config', '--reference']);
    expect(names).toContain('dist/config/reference.js');
    expect(names).toContain('zod');
  });
});

describe('what the first API call loads before its request', () => {
  const simulator = useSimulator();

  it('`api` answers with the body as JSON, through undici but without zod', async () => {
    const { sim } = simulator;
    const env = { CDN_BASE_URL: sim.url, CDN_TOKEN: sim.token };
    // Ten minutes of an hour ago: a valid request.
    const minute = (ms: number) => new Date(ms - (ms % 60_000)).toISOString().slice(0, 19);
    const window = {
      account: sim.accounts[0]!,
      start: minute(sim.clock.now() - 70 * 60_000),
      end: minute(sim.clock.now() - 60 * 60_000),
    };
    const args = ['api', 'metrics', '/', ...Object.entries(window).flatMap(([k, v]) => ['-q', `${k}=${v}`])];
    const run = await runCli(args, env).exited;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(typeof JSON.parse(run.stdout)).toBe('object');
    const names = await loaded(args, env);
    expect(names).toContain('undici');
    expect(names).toContain('dist/cli/api/api-action.js');
    expect(names.filter((name) => /^(zod|pino|luxon|yaml)$/.test(name))).toEqual([]);
  });
});
