import type { MeasurementSchema } from '../../points.js';

const SOURCE = 'GET /app/dvr-net/v1/<account>/streams/<stream>';
const TAGS = {
  account: 'Account name',
  stream: 'Stream name (may contain /)',
  host: 'DVR node (server) that records the stream',
};

export const DVR_MEASUREMENT = 'cdn_dvr';
export const DVR_RANGE_MEASUREMENT = 'cdn_dvr_range';

export const dvrMeasurements: MeasurementSchema[] = [
  {
    name: DVR_MEASUREMENT,
    description: 'Snapshot of the network-DVR state of a stream on one node, at the time it was read',
    source: SOURCE,
    tags: TAGS,
    fields: {
      is_alive: { type: 'boolean', description: 'Whether the stream is alive' },
      enabled: { type: 'boolean', description: 'Whether DVR is enabled for the stream on this node' },
      window: { type: 'integer', description: 'DVR depth (unit not shown in the spec; seconds assumed)', unit: 's', nonNegative: true },
      duration: { type: 'integer', description: 'Total recorded duration, excluding breaks', unit: 's', nonNegative: true },
      from: {
        type: 'integer',
        description: 'Start of the first recording (absent when nothing is recorded)',
        unit: 'unix seconds',
        nonNegative: true,
      },
      ranges: { type: 'integer', description: 'Number of recorded DVR periods', nonNegative: true },
    },
  },
  {
    name: DVR_RANGE_MEASUREMENT,
    description: 'One recorded DVR period of a stream on one node; time = period start, so replays overwrite',
    source: SOURCE,
    tags: TAGS,
    fields: {
      duration: { type: 'integer', description: 'Duration of the period (grows while it is recorded)', unit: 's', nonNegative: true },
      end: { type: 'integer', description: 'End of the period (exclusive)', unit: 'unix seconds', nonNegative: true },
    },
  },
];
