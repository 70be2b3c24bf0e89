import { describe, expect, it } from 'vitest';
import { CONFIG_ENV } from '../../src/config/env.js';
import { runCli } from '../helpers/cli.js';

/** `--help` of the commands that read a configuration lists the environment and the exit codes, as `dvr --help` does.
 * */
describe.each(['run', 'backfill'])('%s --help (a real process)', (command) => {
  it('lists every environment variable with the field it sets, the precedence and the exit codes; exit 0', async () => {
    const r = await runCli([command, '--help']).exited;
    expect(r.code).toBe(0);
    for (const name of [...CONFIG_ENV, 'CDN_SHARD', 'NO_COLOR'])
      expect(r.stdout).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    expect(r.stdout).toMatch(/^ {2}CDN_TOKEN +api\.token$/m);
    expect(r.stdout).toMatch(/^ {2}CDN_LISTEN +http\.port, http\.host$/m);
    expect(r.stdout).toContain('precedence: flag > environment > config file > default');
    expect(r.stdout).toMatch(/^Exit codes:\n {2}0 .+\n {2}1 .+\n {2}2 {2}bad arguments or configuration/m);
    expect(r.stdout).toMatch(/--log-level <level>/);
  });
});
