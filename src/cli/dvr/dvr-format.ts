import Table from 'cli-table3';
import type { ApiError } from '../../http/errors.js';
import type { NodeDeletionPreview } from '../../sources/dvr/preview.js';
import type { DvrGetResponse } from '../../sources/dvr/schemas.js';

/** Text of the `dvr` command's outputs: one function per kind, JSON or a readable table. */

/**
 * A table with red headers only when `colour` (src/colour.ts decides). The codes are ours, not cli-table3's styles:
 * its colour library second-guesses the decision (e.g. it turns colours off whenever CI is set, even on a terminal).
 */
function table(head: string[], colour: boolean): Table.Table {
  return new Table({ head: colour ? head.map((h) => `\x1b[31m${h}\x1b[39m`) : head, style: { head: [], border: [] } });
}

export function isoSeconds(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function formatStreamTable(body: DvrGetResponse, colour: boolean): string {
  const nodes = table(
    ['host', 'alive', 'dvr enabled', 'window (s)', 'recorded (s)', 'first recording', 'ranges'],
    colour,
  );
  for (const { host, is_alive, dvr } of body.data) {
    const first = dvr.ranges.length > 0 && typeof dvr.from === 'number' ? isoSeconds(dvr.from) : '-';
    nodes.push([host, yesNo(is_alive), yesNo(dvr.enabled), dvr.window, dvr.duration, first, dvr.ranges.length]);
  }
  const ranges = table(['host', 'from', 'to', 'duration (s)'], colour);
  for (const { host, dvr } of body.data) {
    for (const r of dvr.ranges) ranges.push([host, isoSeconds(r.from), isoSeconds(r.from + r.duration), r.duration]);
  }
  const rangesText = ranges.length > 0 ? ranges.toString() : '(no recorded ranges)';
  return `Stream ${body.stream_name}\n${nodes.toString()}\n${rangesText}\n`;
}

export interface PreviewReport {
  stream_name: string;
  host: string;
  /** The cut in unix seconds, or 'all'. */
  deletes: { from_ts: number; to_ts: number } | 'all';
  nodes: NodeDeletionPreview[];
}

/** Recorded seconds the deletion removes, over every addressed node. */
function removedSeconds(report: PreviewReport): number {
  return report.nodes.reduce((sum, node) => sum + node.seconds, 0);
}

/** The cut as absolute UTC times next to the unix seconds sent: what the user meant is checked before `--yes`. */
export function previewJson(report: PreviewReport): string {
  const { deletes } = report;
  const absolute =
    deletes === 'all' ? 'all' : { ...deletes, from: isoSeconds(deletes.from_ts), to: isoSeconds(deletes.to_ts) };
  return json({ dry_run: true, ...report, deletes: absolute, seconds: removedSeconds(report), deleted: false });
}

export function formatPreviewTable(report: PreviewReport, colour: boolean): string {
  const range =
    report.deletes === 'all'
      ? 'all recorded DVR'
      : `[${isoSeconds(report.deletes.from_ts)}, ${isoSeconds(report.deletes.to_ts)})`;
  const seconds = removedSeconds(report);
  const what = `${range} (${seconds} recorded seconds${seconds >= 3600 ? `, ${(seconds / 3600).toFixed(1)} h` : ''})`;
  const rows = table(['host', 'from', 'to', 'seconds'], colour);
  for (const node of report.nodes) {
    if (node.parts.length === 0) rows.push([node.host, { colSpan: 2, content: 'nothing recorded there' }, 0]);
    for (const p of node.parts) rows.push([node.host, isoSeconds(p.from), isoSeconds(p.from + p.duration), p.duration]);
  }
  return (
    `Dry run: would delete ${what} of ${report.stream_name} on host ${report.host}:\n${rows.toString()}\n` +
    'Nothing was deleted. Add --yes to delete.\n'
  );
}

export function formatDeletedText(body: Record<string, unknown>): string {
  const { status, stream_name, ...sent } = body;
  const params = Object.entries(sent)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return `${String(status)}: deleted from ${String(stream_name)} (${params})\n`;
}

/** A partial failure: the hosts first, since the other nodes may already have changed. */
export function failedHostsOutput(err: ApiError, asJson: boolean): string {
  const hosts = err.failedHosts ?? [];
  if (asJson) return json({ status: err.apiStatus, description: err.description, failed_hosts: hosts });
  return `Deletion failed on: ${hosts.join(', ')}\nOther addressed nodes may already be changed.\n`;
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}
