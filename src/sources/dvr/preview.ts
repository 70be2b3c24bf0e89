import { ALL_HOSTS, intersect, type SecondsInterval } from '../../spec/dvr.js';
import type { DvrGetResponse } from './schemas.js';

/** What a deletion would remove on one node: the recorded parts inside the cut. */
export interface NodeDeletionPreview {
  host: string;
  parts: Array<{ from: number; duration: number }>;
  seconds: number;
}

/**
 * Per addressed node, the parts of its ranges that a deletion of `cut` would remove (`'all'` = every range), from a
 * GET taken just before. Hosts the stream has no record for are reported in `unknownHosts`.
 */
export function previewDeletion(
  body: DvrGetResponse,
  host: string,
  cut: SecondsInterval | 'all',
): { nodes: NodeDeletionPreview[]; unknownHosts: string[] } {
  const records = host === ALL_HOSTS ? body.data : body.data.filter((r) => r.host === host);
  const nodes = records.map((record) => {
    const ranges = record.dvr.ranges.map((r) => ({ from: r.from, to: r.from + r.duration }));
    const removed = cut === 'all' ? ranges : intersect(ranges, cut);
    const parts = removed.map((r) => ({ from: r.from, duration: r.to - r.from }));
    return { host: record.host, parts, seconds: parts.reduce((sum, p) => sum + p.duration, 0) };
  });
  return { nodes, unknownHosts: records.length === 0 && host !== ALL_HOSTS ? [host] : [] };
}
