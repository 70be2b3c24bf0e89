/**
 * What telemetry reads of the jobs when asked (the collector's job state satisfies it, and its JobFacts extend
 * JobReading): the facts live there, and /metrics, /healthz and the cdn_collector points read them at the instant
 * they are asked for.
 */
export interface JobsView {
  /** Every job's facts as of `now`, sorted by key. */
  snapshot(now: number): { jobs: readonly JobReading[] };
  /** Named conditions of the job state that make the process unhealthy (a checkpoint that cannot be written). */
  conditions(): Record<string, string>;
}

/** One job's facts that telemetry shows. */
export interface JobReading {
  key: string;
  /** Now minus the end of the job's contiguous handled history. */
  lagMs: number;
  /** The lag the job has by design when caught up (its delay plus one window), allowed on top of /healthz's limit. */
  builtInLagMs: number;
  /** Windows a checkpointed job still lacks. */
  backlog: number;
  /** Spans set aside for a permanent reason. */
  setAside: number;
  /** Passes that ended early on an error since the process started. */
  failures: number;
}

/** What telemetry reads from the checkpoint store (checkpoint age); CheckpointStore satisfies it. */
export interface CheckpointView {
  keys(): string[];
  lastConfirmedAt(key: string): number | undefined;
}
