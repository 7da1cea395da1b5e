import type { Clock } from "../../core/mod.ts";

interface Timer {
  at: number;
  order: number;
  resolve: () => void;
}

/**
 * A clock whose time moves only when everything else waits: `run` lets pending work
 * settle, then jumps to the earliest timer and fires it. Concurrent sleeps overlap as
 * they would in real time, so a run's elapsed virtual time is its real schedule.
 */
export class VirtualClock implements Clock {
  current = 0;
  readonly #timers: Timer[] = [];
  #order = 0;

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const timer: Timer = { at: this.current + Math.max(0, ms), order: this.#order++, resolve };
      this.#timers.push(timer);
      signal?.addEventListener("abort", () => {
        this.#timers.splice(this.#timers.indexOf(timer), 1);
        reject(signal.reason);
      }, { once: true });
    });
  }

  /** Settles `promise`, advancing time whenever nothing else can happen. */
  async run<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    promise.then(() => settled = true, () => settled = true);
    for (let turns = 0; turns < 100_000; turns++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (settled) return await promise;
      if (!this.#timers.length) throw new Error("nothing left to wait for: the run is stuck");
      this.#timers.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = this.#timers.shift()!;
      this.current = next.at;
      next.resolve();
    }
    throw new Error("the run did not settle");
  }
}
