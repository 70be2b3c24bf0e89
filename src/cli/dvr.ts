import { Command, Option } from 'commander';
import { useColour } from '../colour.js';
import { HttpClient } from '../http/client.js';
import { ApiError } from '../http/errors.js';
import { DvrClient } from '../sources/dvr/client.js';
import { deleteRangeBody, rangeEnd, type DvrDeleteRange } from '../sources/dvr/params.js';
import { previewDeletion } from '../sources/dvr/preview.js';
import { CliError, EXIT_USAGE } from './common.js';
import {
  asUsageError,
  parseSeconds,
  parseTimestamp,
  resolveConnection,
  wantsJson,
  type ConnectionOptions,
  type DvrIo,
} from './dvr-args.js';
import {
  failedHostsOutput,
  formatDeletedText,
  formatPreviewTable,
  formatStreamTable,
  json,
  previewJson,
  type PreviewReport,
} from './dvr-format.js';

interface CommonOptions extends ConnectionOptions {
  json?: boolean;
  table?: boolean;
}

interface DeleteOptions extends CommonOptions {
  host: string;
  yes?: boolean;
  dryRun?: boolean;
}

interface RangeOptions extends DeleteOptions {
  from: number;
  to?: number;
  duration?: number;
}

const processIo: DvrIo = { stdout: process.stdout, env: process.env };

const OUTPUT_HELP = `
Output: a table on a terminal; JSON with --json, and also by default when stdout is not a terminal (pipe, file).
Connection: --base-url or CDN_BASE_URL; the token from CDN_TOKEN or --token-file (--token works, but ps shows it).
The token is never printed.
Exit codes: 0 done (or dry run), 1 API error or deletion failed on some host (failed_hosts printed), 2 bad arguments.`;

/** `cdn-collector dvr get|delete|delete-all`: DVR management (spec 000). Deleting needs --yes; otherwise a dry run. */
export function dvrCommand(io: DvrIo = processIo): Command {
  const dvr = new Command('dvr').description('DVR management: get, delete a range, delete all').addHelpText('after', OUTPUT_HELP);
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
      (account: string, stream: string, o: CommonOptions) => runGet(io, account, stream, o),
    ),
  );
  dvr.addCommand(
    withDeleteOptions(sub('delete', 'Delete [--from, --to) or [--from, --from + --duration) of the recorded DVR'))
      .requiredOption('--from <time>', 'start (inclusive): unix seconds or ISO 8601', parseTimestamp('--from'))
      .addOption(new Option('--to <time>', 'end (exclusive): unix seconds or ISO 8601').argParser(parseTimestamp('--to')).conflicts('duration'))
      .option('--duration <seconds>', 'length in seconds (90, 90s, 5m)', parseSeconds('--duration'))
      .action((account: string, stream: string, o: RangeOptions) => runDeleteRange(io, account, stream, o)),
  );
  dvr.addCommand(
    withDeleteOptions(sub('delete-all', 'Delete all accumulated DVR (an alive stream then records again)')).action(
      (account: string, stream: string, o: DeleteOptions) => runDeleteAll(io, account, stream, o),
    ),
  );
  return dvr;
}

function withCommonOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'API base URL (default: env CDN_BASE_URL)')
    .option('--token <token>', 'access token (visible in ps: prefer env CDN_TOKEN or --token-file)')
    .option('--token-file <path>', 'read the access token from this file (first line)')
    .addOption(new Option('--json', 'print JSON').conflicts('table'))
    .option('--table', 'print a table even when stdout is not a terminal');
}

function withDeleteOptions(command: Command): Command {
  return command
    .requiredOption('--host <host>', 'node identifier, or * for all nodes')
    .option('--yes', 'really delete (without it the command only shows what would be deleted)')
    .option('--dry-run', 'only show what would be deleted, even with --yes');
}

async function runGet(io: DvrIo, account: string, stream: string, o: CommonOptions): Promise<void> {
  await withClient(io, o, async (client) => {
    const body = await asUsageError(() => client.get(account, stream));
    io.stdout.write(wantsJson(o, io) ? json(body) : formatStreamTable(body, useColour(io.stdout, io.env)));
  });
}

async function runDeleteRange(io: DvrIo, account: string, stream: string, o: RangeOptions): Promise<void> {
  if (o.to === undefined && o.duration === undefined) throw new CliError('one of --to or --duration is required', EXIT_USAGE);
  const range: DvrDeleteRange =
    o.to !== undefined ? { host: o.host, fromTs: o.from, toTs: o.to } : { host: o.host, fromTs: o.from, durationSec: o.duration };
  // The spec's rules, checked before anything is read or deleted.
  await asUsageError(async () => deleteRangeBody(range));
  const cut = { from: o.from, to: rangeEnd(range) };
  await withClient(io, o, async (client) => {
    if (!o.yes || o.dryRun) return preview(io, client, account, stream, o, cut);
    await reportDeletion(io, o, () => client.deleteRange(account, stream, range));
  });
}

async function runDeleteAll(io: DvrIo, account: string, stream: string, o: DeleteOptions): Promise<void> {
  await withClient(io, o, async (client) => {
    if (!o.yes || o.dryRun) return preview(io, client, account, stream, o, 'all');
    await reportDeletion(io, o, () => client.deleteAll(account, stream, { host: o.host }));
  });
}

/** The dry run: a GET and the parts of each addressed node's ranges that the deletion would remove. */
async function preview(
  io: DvrIo,
  client: DvrClient,
  account: string,
  stream: string,
  o: DeleteOptions,
  cut: { from: number; to: number } | 'all',
): Promise<void> {
  if (o.host.length === 0) throw new CliError('--host must not be empty', EXIT_USAGE);
  const body = await asUsageError(() => client.get(account, stream));
  const { nodes, unknownHosts } = previewDeletion(body, o.host, cut);
  if (unknownHosts.length > 0) {
    const known = body.data.map((r) => r.host).join(', ');
    throw new CliError(`--host ${o.host}: the stream has no record on that host (hosts: ${known}, or *)`, EXIT_USAGE);
  }
  const report: PreviewReport = {
    stream_name: body.stream_name,
    host: o.host,
    deletes: cut === 'all' ? 'all' : { from_ts: cut.from, to_ts: cut.to },
    nodes,
  };
  io.stdout.write(wantsJson(o, io) ? previewJson(report) : formatPreviewTable(report, useColour(io.stdout, io.env)));
}

async function reportDeletion(io: DvrIo, o: DeleteOptions, remove: () => Promise<Record<string, unknown>>): Promise<void> {
  try {
    const body = await asUsageError(remove);
    io.stdout.write(wantsJson(o, io) ? json(body) : formatDeletedText(body));
  } catch (err) {
    if (err instanceof ApiError && err.failedHosts) {
      io.stdout.write(failedHostsOutput(err, wantsJson(o, io)));
      throw new CliError(`deletion failed on ${err.failedHosts.join(', ')}: ${err.description ?? `HTTP ${err.status}`}`, 1);
    }
    throw err;
  }
}

async function withClient(io: DvrIo, o: ConnectionOptions, run: (client: DvrClient) => Promise<void>): Promise<void> {
  const { baseUrl, token } = resolveConnection(o, io.env, io.output?.writeErr);
  const http = new HttpClient({ baseUrl, token });
  try {
    await run(new DvrClient(http));
  } finally {
    await http.close();
  }
}
