import type { MeasurementSchema } from '../../points.js';

const SOURCE = 'GET /app/dvr-net/v1/<account>/streams/<stream>';
const TAGS = {
  account: 'Account name',
  stream: 'Stream name (may contain /)',
  host: 'DVR node (server) that records the stream',
};

export const DVR_MEASUREMENT = 'cdn_dvr';
export const DVR_RANGE_MEASUREMENT = 'cdn_dvr_range';

/**
 * The recorded periods now, for Grafana: rows seen by the snapshot of the interval that holds the dashboard's end
 * (`seen_at` is a multiple of the interval, so `> to − 60` is exactly `= floor(to / 60) × 60`). InfluxQL cannot
 * compare a row with an aggregate of other rows, so the latest snapshot is named by the dashboard's time.
 */
export const DVR_RANGES_NOW_QUERY =
  'SELECT "starts_at", "ends_at", "length_seconds", "seen_at" FROM "cdn_dvr_range" ' +
  'WHERE "seen_at" > ${__to:date:seconds} - 60 GROUP BY "account", "stream", "host"';

export const dvrMeasurements: MeasurementSchema[] = [
  {
    name: DVR_MEASUREMENT,
    description: 'Snapshot of the network-DVR state of a stream on one node, at the time it was read',
    source: SOURCE,
    tags: TAGS,
    fields: {
      is_alive: { type: 'boolean', description: 'Whether the stream is alive' },
      enabled: { type: 'boolean', description: 'Whether DVR is enabled for the stream on this node' },
      window: {
        type: 'integer',
        description: 'DVR depth (unit not shown in the spec; seconds assumed)',
        unit: 's',
        aggregate: 'last',
        nonNegative: true,
      },
      recorded_seconds: {
        type: 'integer',
        description: "Total recorded duration, excluding breaks (the API's `duration`)",
        unit: 's',
        aggregate: 'last',
        nonNegative: true,
      },
      first_recorded_at: {
        type: 'integer',
        description: "Start of the first recording (the API's `from`; absent when nothing is recorded)",
        unit: 'unix seconds',
        aggregate: 'last',
        nonNegative: true,
      },
      ranges: { type: 'integer', description: 'Number of recorded DVR periods', aggregate: 'last', nonNegative: true },
    },
  },
  {
    name: DVR_RANGE_MEASUREMENT,
    description:
      'One DVR recording of a stream on one node. time = the start the recording had when first seen, kept across ' +
      'snapshots (state dir, dvr-recordings.json) while the DVR window cuts its start, so each snapshot overwrites ' +
      'its one row. Not written where output.overwrites is false. The query lists the recorded periods now: the ' +
      "rows whose seen_at is the latest snapshot's, named by the dashboard's end (60 = jobs.dvr.interval in seconds)",
    source: SOURCE,
    tags: TAGS,
    fields: {
      starts_at: {
        type: 'integer',
        description: 'Start of the period now (moves once the DVR window cuts it)',
        unit: 'unix seconds',
        aggregate: 'last',
        nonNegative: true,
      },
      ends_at: {
        type: 'integer',
        description: 'End of the period (exclusive; grows while it is recorded)',
        unit: 'unix seconds',
        aggregate: 'last',
        nonNegative: true,
      },
      length_seconds: {
        type: 'integer',
        description: 'ends_at − starts_at',
        unit: 's',
        aggregate: 'last',
        nonNegative: true,
      },
      seen_at: {
        type: 'integer',
        description: 'Time of the last snapshot that listed the period',
        unit: 'unix seconds',
        aggregate: 'last',
        nonNegative: true,
      },
    },
    query: DVR_RANGES_NOW_QUERY,
  },
];
