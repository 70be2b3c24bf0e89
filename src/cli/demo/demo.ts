import { Command } from 'commander';
import { parseDuration, parseIntArg } from '../common/common.js';
import type { DemoOptions } from './demo-action.js';

export function demoCommand(): Command {
  return new Command('demo')
    .description(
      'Start the simulator and the collector against it: backfill the last hours, print a summary, keep collecting. ' +
        'Writes to InfluxDB when INFLUX_URL (+ INFLUX_TOKEN/ORG/BUCKET or INFLUX_DATABASE) is set, else to ./data/*.lp',
    )
    .option('--hours <n>', 'hours of history to backfill first', parseIntArg('--hours', 1), 3)
    .option('--duration <d>', 'stop by itself after this long (e.g. 30s, 5m); default: run until Ctrl-C', parseDuration)
    .option('--data-dir <dir>', 'line-protocol output and checkpoints', '../data')
    .option('--seed <n>', 'simulator seed', parseIntArg('--seed'), 42)
    .action(async (o: DemoOptions) => (await import('./demo-action.js')).demoAction(o));
}
