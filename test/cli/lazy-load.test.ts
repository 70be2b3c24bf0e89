import { describe, expect, it } from 'vitest';
import { loadedModules, moduleName } from '../helpers/loaded-modules.js';

/**
 * Start-up (issue 14 goal 5): help and argument errors load commander and the command definitions, not what a
 * command does. The simulator's flag grammar (sim/faults, sim/model/rng) is part of `sim`'s definition.
 */
const HEAVY = /^(undici|pino|pino-pretty|zod|@influxdata\/.*|luxon|node-cron|yaml|cli-table3|cli-progress|p-limit)$|^dist\/collector\/(?!verdict\.js$)|^dist\/(sources|sink|telemetry|state|verify|config\/schema|config\/loader)\b|^dist\/sim\/(?!faults\.js$|model\/rng\.js$)/;

describe('what the CLI loads (a real process with a module-loader hook)', () => {
  const cases = [['--help'], ['run', '--help'], ['backfill', '--help'], ['dvr', 'get', '--help'], ['api', '--help'], ['sim', '--help'], ['run', '--no-such-flag']];
  it.each(cases.map((args) => [args.join(' '), args] as const))(
    '%s: commander and the command definitions only',
    async (_, args) => {
      const names = (await loadedModules(args)).map(moduleName);
      expect(names).toContain('commander');
      expect(names).toContain('dist/cli/run.js');
      expect(names.filter((name) => HEAVY.test(name))).toEqual([]);
    },
  );

  it('a command that runs loads its implementation (the hook sees the dependencies: the check above can fail)', async () => {
    const names = (await loadedModules(['config', '--reference'])).map(moduleName);
    expect(names).toContain('dist/config/reference.js');
    expect(names).toContain('zod');
  });
});
