import { Command } from 'commander';
import { EXIT_POINTS_REFUSED } from '../common/verdict.js';
import { TIME_HELP } from '../../time-text.js';
import { collect, configFileOption, configHelp, forceLoginOption, parseTimeOption } from '../common/common.js';
import { shardOption } from '../common/shard.js';
import type { BackfillOptions } from './backfill-action.js';

export function backfillCommand(): Command {
  return new Command('backfill')
    .description(
      'Collect a historical range once, within the quotas; resumable. Beside a running daemon (same state.dir) the ' +
        'daemon runs it: same token, quota and checkpoints, live calls first, no window collected twice',
    )
    .addOption(configFileOption())
    .requiredOption('--from <time>', 'start (a time: see Times below)', parseTimeOption('--from'))
    .option('--to <time>', 'end, exclusive (default: now; capped at the newest final window)', parseTimeOption('--to'))
    .option(
      '--jobs <prefix>',
      'only jobs whose key starts with this text: `metrics` selects metrics/… and metrics_resource/…, `metrics/` ' +
        "the first alone, `statistic/acme/` one account's statistics; repeatable",
      collect,
    )
    .option('--dry-run', 'print the plan (calls per API, minimum duration under the quotas) and exit')
    .option('--json', 'print the plan or the result as JSON')
    .addOption(shardOption())
    .addOption(forceLoginOption())
    .addHelpText('after', `\n${TIME_HELP}`)
    .addHelpText(
      'after',
      configHelp('incomplete: some spans failed or were set aside (rerun to resume)', 'complete (or --dry-run)', [
        `${EXIT_POINTS_REFUSED}  complete, but the database refused points for good (dead letters; the message says ` +
          `the fix)`,
      ]),
    )
    .action(async (o: BackfillOptions) => (await import('./backfill-action.js')).backfillAction(o));
}
