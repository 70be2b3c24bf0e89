import type { Clock } from '../../src/clock.js';
import type { JobReading, JobsView } from '../../src/contracts/job-view.js';
import type { Telemetry } from '../../src/telemetry/telemetry.js';

interface SetFacts {
  lag?: { ms: number; at: number; builtInMs: number };
  backlog?: number;
  setAside?: number;
  failures?: number;
}

/**
 * Job facts a test sets by hand, for telemetry to read (what the collector's job state gives it in the daemon): a lag
 * set at some instant grows with the clock from then, as a stalled job's would. Over `base` (a runtime's job state),
 * the facts set replace the base's for their job; the base's other jobs are read as they are.
 */
export class SetJobFacts implements JobsView {
  private readonly facts = new Map<string, SetFacts>();

  constructor(
    private readonly clock: Clock,
    private readonly base?: JobsView,
  ) {}

  /** Makes `telemetry` read these facts from now on. */
  static watchedBy(telemetry: Telemetry, clock: Clock, base?: JobsView): SetJobFacts {
    const facts = new SetJobFacts(clock, base);
    telemetry.watchJobs(facts);
    return facts;
  }

  lag(job: string, ms: number, builtInMs = 0): this {
    return this.set(job, { lag: { ms: Math.max(0, ms), at: this.clock.now(), builtInMs } });
  }

  backlog(job: string, windows: number): this {
    return this.set(job, { backlog: windows });
  }

  setAside(job: string, spans: number): this {
    return this.set(job, { setAside: spans });
  }

  failed(job: string): this {
    return this.set(job, { failures: (this.facts.get(job)?.failures ?? 0) + 1 });
  }

  snapshot(now: number): { jobs: JobReading[] } {
    const base = new Map((this.base?.snapshot(now).jobs ?? []).map((j) => [j.key, j]));
    const keys = [...new Set([...base.keys(), ...this.facts.keys()])].sort();
    const jobs = keys.map((key) => {
      const { lag, backlog, setAside, failures } = this.facts.get(key) ?? {};
      const from = base.get(key);
      return {
        key,
        lagMs: lag ? lag.ms + Math.max(0, now - lag.at) : (from?.lagMs ?? 0),
        builtInLagMs: lag ? lag.builtInMs : (from?.builtInLagMs ?? 0),
        backlog: backlog ?? from?.backlog ?? 0,
        setAside: setAside ?? from?.setAside ?? 0,
        failures: failures ?? from?.failures ?? 0,
      };
    });
    return { jobs };
  }

  conditions(): Record<string, string> {
    return this.base?.conditions() ?? {};
  }

  private set(job: string, facts: SetFacts): this {
    this.facts.set(job, { ...this.facts.get(job), ...facts });
    return this;
  }
}
