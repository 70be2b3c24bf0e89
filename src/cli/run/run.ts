import { Command } from 'commander';
import { EXIT_POINTS_REFUSED, EXIT_SET_ASIDE, EXIT_WINDOWS_FAILED } from '../common/verdict.js';
import { shardOption } from '../common/shard.js';
import { configFileOption, configHelp, forceLoginOption } from '../common/common.js';
import type { RunOptions } from './run-action.js';

const EXIT_CODES_HELP = configHelp(
  'an error stopped it (the message says which); --check --online: some check failed',
  'stopped (Ctrl-C, SIGTERM); --once: every pending window collected; --check: all checks passed',
  [
    `${EXIT_SET_ASIDE}  --once: some windows were set aside (a permanent failure of that window; retried later)`,
    `${EXIT_WINDOWS_FAILED}  --once: some windows failed (API or sink down, token refused): they stay pending;`,
    '   when the sink is the cause (no such database…), a line `once: cause: …` follows with the fix;',
    '   --once --dry-run: some job did not answer',
    `${EXIT_POINTS_REFUSED}  --once: points refused by the database for good ` +
      '(field type conflict, beyond the retention',
    '   policy): kept as dead letters, the error line says the fix',
  ],
  // The daemon's stop is its normal end; --once is stopped as the daemon stops, and says what it left.
  '130  --once stopped by Ctrl-C (143: SIGTERM, 129: SIGHUP) with windows left: the calls in flight finished, their\n' +
    '     windows were written and checkpointed, the rest is left for the next run. The daemon exits 0 after Ctrl-C\n' +
    '     or SIGTERM (the same graceful stop) and ignores SIGHUP (it logs it: restart to apply a changed config)',
);

export function runCommand(): Command {
  return (
    new Command('run')
      .description(
        'Run the collector daemon: scheduled collection, gap filling from checkpoints, graceful stop on SIGINT/SIGTERM',
      )
      .addOption(configFileOption())
      .option(
        '--check',
        'validate the configuration and exit (0 = valid, 2 = invalid); warns of work that exceeds a quota',
      )
      .option(
        '--online',
        'with --check: also call each enabled API once and test a write to the sink; a verdict per API and sink ' +
          '(exit 0 all ok, 1 some failed)',
      )
      .option(
        '--once',
        'run one pass of every job (fills gaps), print a one-line verdict and exit (see the exit codes)',
      )
      .option(
        '--dry-run',
        'with --once: read the newest window of every job and print its points as line protocol on stdout; writes ' +
          'nothing, changes no checkpoint',
      )
      .addOption(shardOption())
      .addOption(forceLoginOption())
      .addHelpText('after', EXIT_CODES_HELP)
      // The daemon's modules load when it runs, not for `run --help` or an argument error.
      .action(async (o: RunOptions) => (await import('./run-action.js')).runAction(o))
  );
}
