import { Command } from 'commander';
import { TIME_HELP } from '../../time-text.js';
import { EXIT_DRIFT, configFileOption, configHelp, forceLoginOption, parseTimeOption } from '../common/common.js';
import { shardOption } from '../common/shard.js';
import type { VerifyOptions } from './verify-action.js';

const COULD_NOT_FINISH =
  'could not finish: database unreachable (checked first), or an API failing for verify.giveUpAfter (2m)';

export function verifyCommand(): Command {
  return new Command('verify')
    .description(
      'Reconcile: compare the sums stored in the database with the provider totals per account, grouping and day (or ' +
        'hour)',
    )
    .addOption(configFileOption())
    .requiredOption('--from <time>', 'start, a whole day or hour (a time: see Times below)', parseTimeOption('--from'))
    .option(
      '--to <time>',
      'end, exclusive (default: --from + 1 day when --from is a day, else + 1 hour)',
      parseTimeOption('--to'),
    )
    .option('--repair', 're-collect the windows that drift (through the quotas), then check again')
    .option('--json', 'print the report as JSON')
    .addOption(shardOption())
    .addOption(forceLoginOption())
    .addHelpText('after', `\n${TIME_HELP}`)
    .addHelpText(
      'after',
      configHelp(COULD_NOT_FINISH, 'no drift (the sink is the database read back)', [
        `${EXIT_DRIFT}  drift found (with --repair: still drifting after the repair)`,
      ]),
    )
    .action(async (o: VerifyOptions) => (await import('./verify-action.js')).verifyAction(o));
}
