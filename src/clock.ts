/** Time source injected wherever time matters, so tests and benchmarks can run days in seconds. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

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
  private readonly realStart = Date.now();
  constructor(
    private readonly origin: number,
    /** Public so waiting code (the limiter's sleeper) can turn clock milliseconds into real ones. */
    readonly speed: number,
  ) {}
  now(): number {
    return this.origin + (Date.now() - this.realStart) * this.speed;
  }
}
