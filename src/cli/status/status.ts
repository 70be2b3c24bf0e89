import { Command } from 'commander';
import { configFileOption } from '../common/common.js';
import { shardOption } from '../common/shard.js';
import type { StatusOptions } from './status-action.js';

export function statusCommand(): Command {
  return new Command('status')
    .description(
      'Per job: watermark, lag, backlog, set-aside spans (reason, next retry), last error; per API: quota use; ' +
        'the APIs and the sink failing, as /healthz names them; backfills handed to the daemon. Takes no lock, so ' +
        'it works while the daemon runs. A table on a terminal; plain lines otherwise',
    )
    .addOption(configFileOption())
    .option('--json', 'print JSON')
    .addOption(shardOption())
    .action(async (o: StatusOptions) => (await import('./status-action.js')).statusAction(o));
}
