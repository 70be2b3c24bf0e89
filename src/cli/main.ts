import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { systemClock } from '../clock.js';
import { CollectorError } from '../errors.js';
import { VERSION } from '../version.js';
import { apiCommand } from './api/api.js';
import { backfillCommand } from './backfill/backfill.js';
import { EXIT_FAILURE, EXIT_USAGE, exitCodeOf } from './common/common.js';
import { configCommand } from './config/config.js';
import { demoCommand } from './demo/demo.js';
import { dvrCommand } from './dvr/dvr.js';
import { redactWritesOnFirstUse } from './redacted-output.js';
import { withOverrideFlags } from './overrides.js';
import { runCommand } from './run/run.js';
import { schemaCommand } from './schema/schema.js';
import { endQuietlyWhenUnread, handleStopSignals } from './common/signals.js';
import { simCommand } from './sim/sim.js';
import { statusCommand } from './status/status.js';
import { verifyCommand } from './verify/verify.js';

// Secrets never reach the terminal, whatever quotes them (an error repeating a server's answer, a config value).
redactWritesOnFirstUse(process, 'stdout', endQuietlyWhenUnread);
redactWritesOnFirstUse(process, 'stderr');
handleStopSignals(systemClock);

const program = new Command('cdn-collector')
  .description('Collects CDN analytics (metrics, statistics, stream views, DVR) into InfluxDB')
  .version(VERSION)
  .exitOverride()
  .showHelpAfterError('(add --help for usage)');

const commands = [
  withOverrideFlags(demoCommand()),
  withOverrideFlags(runCommand(), { listen: true }),
  withOverrideFlags(backfillCommand()),
  dvrCommand(),
  apiCommand(),
  simCommand(),
  schemaCommand(),
  withOverrideFlags(configCommand(), { listen: true }),
  statusCommand(),
  withOverrideFlags(verifyCommand()),
];
for (const command of commands) {
  program.addCommand(command.exitOverride().showHelpAfterError('(add --help for usage)'));
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = report(err);
}

/** Prints a failure (a stack only for one that is not ours: a bug) and returns the exit code (see exitCodeOf). */
function report(err: unknown): number {
  if (err instanceof InvalidArgumentError) {
    // Thrown by an action (commander prints only the errors it raises while parsing).
    process.stderr.write(`error: ${err.message}\n`);
    return EXIT_USAGE;
  }
  if (err instanceof CommanderError) {
    // --help and --version exit 0; every argument error exits 2 (commander itself would use 1).
    return err.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  if (err instanceof CollectorError) {
    process.stderr.write(`error: ${err.message}\n`);
    return exitCodeOf(err);
  }
  process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT_FAILURE;
}
