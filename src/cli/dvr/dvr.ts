import { Command, Option } from 'commander';
import { TIME_HELP } from '../../time-text.js';
import { forceLoginOption, loginStateOption } from '../common/common.js';
import { parseSeconds, parseTimestamp, type DvrIo } from '../common/dvr-args.js';
import type { CommonOptions, DeleteOptions, RangeOptions } from './dvr-action.js';

/** The client and the output formats load when a subcommand runs, not for `dvr --help` or an argument error. */
const actions = () => import('./dvr-action.js');

const processIo: DvrIo = { stdout: process.stdout, env: process.env };

const OUTPUT_HELP = `
Output: a table on a terminal; JSON with --json, and also by default when stdout is not a terminal (pipe, file).
Connection: --base-url or CDN_BASE_URL; the token from CDN_TOKEN or --token-file (--token works, but ps shows it),
or a login: --username or CDN_USERNAME, with CDN_PASSWORD or --password-file (CDN_PASSWORD_FILE); one login per run.
The token and the password are never printed.
Exit codes: 0 done (or dry run), 1 API error or deletion failed on some host (failed_hosts printed), 2 bad arguments.`;

/** `cdn-collector dvr get|delete|delete-all`: DVR management (spec 000). Deleting needs --yes; otherwise a dry run. */
export function dvrCommand(io: DvrIo = processIo): Command {
  const dvr = new Command('dvr')
    .description('DVR management: get, delete a range, delete all')
    .addHelpText('after', OUTPUT_HELP);
  if (io.output) dvr.configureOutput(io.output);
  const sub = (name: string, description: string) =>
    withCommonOptions(
      new Command(name)
        .description(description)
        .argument('<account>', 'account name')
        .argument('<stream>', 'stream name; may contain /'),
    )
      .addHelpText('after', OUTPUT_HELP)
      .exitOverride()
      .showHelpAfterError('(add --help for usage)')
      .configureOutput(io.output ?? {});

  dvr.addCommand(
    sub('get', 'Show the DVR of a stream: one record per node, with its recorded ranges').action(
      async (account: string, stream: string, o: CommonOptions) => (await actions()).runGet(io, account, stream, o),
    ),
  );
  dvr.addCommand(
    withDeleteOptions(sub('delete', 'Delete [--from, --to) or [--from, --from + --duration) of the recorded DVR'))
      .requiredOption('--from <time>', 'start (inclusive; a time: see Times below)', parseTimestamp('--from'))
      .addOption(
        new Option('--to <time>', 'end (exclusive; a time)').argParser(parseTimestamp('--to')).conflicts('duration'),
      )
      .option('--duration <seconds>', 'length in seconds (90, 90s, 5m)', parseSeconds('--duration'))
      .addHelpText('after', `\n${TIME_HELP}`)
      .action(async (account: string, stream: string, o: RangeOptions) =>
        (await actions()).runDeleteRange(io, account, stream, o),
      ),
  );
  dvr.addCommand(
    withDeleteOptions(sub('delete-all', 'Delete all accumulated DVR (an alive stream then records again)')).action(
      async (account: string, stream: string, o: DeleteOptions) =>
        (await actions()).runDeleteAll(io, account, stream, o),
    ),
  );
  return dvr;
}

function withCommonOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'API base URL (default: env CDN_BASE_URL)')
    .option('--token <token>', 'access token (visible in ps: prefer env CDN_TOKEN or --token-file)')
    .option('--token-file <path>', 'read the access token from this file (first line)')
    .option(
      '--username <name>',
      'log in as this user instead (default: env CDN_USERNAME); password from CDN_PASSWORD or --password-file',
    )
    .option('--password-file <path>', 'the login password: first line of this file (default: env CDN_PASSWORD_FILE)')
    .addOption(loginStateOption())
    .addOption(forceLoginOption())
    .addOption(new Option('--json', 'print JSON').conflicts('table'))
    .option('--table', 'print a table even when stdout is not a terminal');
}

function withDeleteOptions(command: Command): Command {
  return command
    .requiredOption('--host <host>', 'node identifier, or * for all nodes')
    .option('--yes', 'really delete (without it the command only shows what would be deleted)')
    .option('--dry-run', 'only show what would be deleted, even with --yes');
}
