import { useColour } from '../../colour.js';
import { HttpClient } from '../../http/client.js';
import { ApiError } from '../../http/errors.js';
import { DvrClient } from '../../sources/dvr/client.js';
import { deleteRangeBody, rangeEnd, type DvrDeleteRange } from '../../sources/dvr/params.js';
import { previewDeletion } from '../../sources/dvr/preview.js';
import { CliError, EXIT_USAGE } from '../common/common.js';
import { loginStateDir, resolveConnection } from '../common/connection.js';
import { asUsageError, wantsJson, type ConnectionOptions, type DvrIo } from '../common/dvr-args.js';
import {
  failedHostsOutput,
  formatDeletedText,
  formatPreviewTable,
  formatStreamTable,
  json,
  previewJson,
  type PreviewReport,
} from './dvr-format.js';

export interface CommonOptions extends ConnectionOptions {
  json?: boolean;
  table?: boolean;
}

export interface DeleteOptions extends CommonOptions {
  host: string;
  yes?: boolean;
  dryRun?: boolean;
}

export interface RangeOptions extends DeleteOptions {
  from: number;
  to?: number;
  duration?: number;
}

// What the dvr subcommands do, loaded only when one runs (dvr.ts defines them).

export async function runGet(io: DvrIo, account: string, stream: string, o: CommonOptions): Promise<void> {
  await withClient(io, o, async (client) => {
    const body = await asUsageError(() => client.get(account, stream));
    io.stdout.write(wantsJson(o, io) ? json(body) : formatStreamTable(body, useColour(io.stdout, io.env)));
  });
}

export async function runDeleteRange(io: DvrIo, account: string, stream: string, o: RangeOptions): Promise<void> {
  if (o.to === undefined && o.duration === undefined)
    throw new CliError('one of --to or --duration is required', EXIT_USAGE);
  const range: DvrDeleteRange =
    o.to !== undefined
      ? { host: o.host, fromTs: o.from, toTs: o.to }
      : { host: o.host, fromTs: o.from, durationSec: o.duration };
  // The spec's rules, checked before anything is read or deleted.
  await asUsageError(async () => deleteRangeBody(range));
  const cut = { from: o.from, to: rangeEnd(range) };
  await withClient(io, o, async (client) => {
    const report = await checkedPreview(client, account, stream, o, cut);
    if (!o.yes || o.dryRun) return printPreview(io, o, report);
    await reportDeletion(io, o, () => client.deleteRange(account, stream, range));
  });
}

export async function runDeleteAll(io: DvrIo, account: string, stream: string, o: DeleteOptions): Promise<void> {
  await withClient(io, o, async (client) => {
    const report = await checkedPreview(client, account, stream, o, 'all');
    if (!o.yes || o.dryRun) return printPreview(io, o, report);
    await reportDeletion(io, o, () => client.deleteAll(account, stream, { host: o.host }));
  });
}

/**
 * A GET and the parts of each addressed node's ranges that the deletion would remove. Taken with and without --yes,
 * so a deletion is refused on exactly the hosts a preview refuses.
 */
async function checkedPreview(
  client: DvrClient,
  account: string,
  stream: string,
  o: DeleteOptions,
  cut: { from: number; to: number } | 'all',
): Promise<PreviewReport> {
  if (o.host.length === 0) throw new CliError('--host must not be empty', EXIT_USAGE);
  const body = await asUsageError(() => client.get(account, stream));
  const { nodes, unknownHosts } = previewDeletion(body, o.host, cut);
  if (unknownHosts.length > 0) {
    const known = body.data.map((r) => r.host).join(', ');
    throw new CliError(`--host ${o.host}: the stream has no record on that host (hosts: ${known}, or *)`, EXIT_USAGE);
  }
  return {
    stream_name: body.stream_name,
    host: o.host,
    deletes: cut === 'all' ? 'all' : { from_ts: cut.from, to_ts: cut.to },
    nodes,
  };
}

/** The dry run's output. */
function printPreview(io: DvrIo, o: DeleteOptions, report: PreviewReport): void {
  io.stdout.write(wantsJson(o, io) ? previewJson(report) : formatPreviewTable(report, useColour(io.stdout, io.env)));
}

async function reportDeletion(
  io: DvrIo,
  o: DeleteOptions,
  remove: () => Promise<Record<string, unknown>>,
): Promise<void> {
  try {
    const body = await asUsageError(remove);
    io.stdout.write(wantsJson(o, io) ? json(body) : formatDeletedText(body));
  } catch (err) {
    if (err instanceof ApiError && err.failedHosts) {
      io.stdout.write(failedHostsOutput(err, wantsJson(o, io)));
      throw new CliError(
        `deletion failed on ${err.failedHosts.join(', ')}: ${err.description ?? `HTTP ${err.status}`}`,
        1,
      );
    }
    throw err;
  }
}

async function withClient(io: DvrIo, o: ConnectionOptions, run: (client: DvrClient) => Promise<void>): Promise<void> {
  const { baseUrl, token } = resolveConnection(o, io.env, io.output?.writeErr, await loginStateDir(o));
  await token.checkStart?.();
  const http = new HttpClient({ baseUrl, token });
  try {
    await run(new DvrClient(http));
  } finally {
    await http.close();
  }
}
