import { type Clock, systemClock } from "../../lib/core/mod.ts";

/** A clock that never waits: `sleep` records the delay and advances `now`. */
export class FakeClock implements Clock {
  current: number;
  readonly sleeps: number[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.sleeps.push(ms);
    this.current += ms;
    return Promise.resolve();
  }
}

/**
 * The system clock moved forward by what a test skips: `sleep` waits for real, so code
 * that paces itself on the clock (a socket's drain) still lets I/O run, while `now` can
 * jump past a deadline (a session's TTL) without the test waiting for it.
 */
export class ShiftedClock implements Clock {
  offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }

  /** Moves `now` forward by `ms`. */
  skip(ms: number): void {
    this.offset += ms;
  }
}
