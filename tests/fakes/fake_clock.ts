import type { Clock } from "../../lib/core/mod.ts";

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
