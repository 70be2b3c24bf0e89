/** Time source injected wherever time matters, so tests and benchmarks can run days in seconds. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Milliseconds on a monotonic source (performance.now, offset to read like epoch ms at start-up): it never steps when
 * the wall clock is set (NTP, an operator), so intervals measured on it — quota windows, deadlines — stay true.
 * Not for anything persisted: another process has another time base.
 */
export const monotonicClock: Clock = { now: () => performance.timeOrigin + performance.now() };

/**
 * The clock to measure intervals on: the system clock's monotonic twin; test and demo clocks (manual, scaled, virtual)
 * as they are, since they do not step.
 */
export function intervalClock(clock: Clock): Clock {
  return clock === systemClock ? monotonicClock : clock;
}

/** A clock that only moves when told to (unit tests). */
export class ManualClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** A clock that starts at `origin` and runs `speed` times faster than real time (demo, soak benchmarks). */
export class ScaledClock implements Clock {
  /** Real time is measured monotonically, so a wall-clock step does not jump the scaled clock by step × speed. */
  private readonly realStart = performance.now();
  constructor(
    private readonly origin: number,
    /** Public so waiting code (the limiter's sleeper) can turn clock milliseconds into real ones. */
    readonly speed: number,
  ) {}
  now(): number {
    return this.origin + (performance.now() - this.realStart) * this.speed;
  }
}
