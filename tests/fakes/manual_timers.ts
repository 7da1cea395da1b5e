import type { Timers } from "../../lib/core/mod.ts";

/** A timer waiting in `ManualTimers`: its callback and the delay it was set for. */
export interface PendingTimer {
  callback: () => void;
  ms: number;
}

/** Timers that never fire on their own: a test fires them, by delay, when it chooses. */
export class ManualTimers implements Timers {
  readonly pending = new Map<number, PendingTimer>();
  #next = 1;

  set(callback: () => void, ms: number): number {
    this.pending.set(this.#next, { callback, ms });
    return this.#next++;
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** The delays of the timers still waiting, in the order they were set. */
  delays(): number[] {
    return [...this.pending.values()].map((timer) => timer.ms);
  }

  /**
   * Fires (and removes) every timer waiting for `ms` when called; returns how many fired.
   * A timer that a callback sets is left for a later call, even for the same `ms`: a
   * watchdog that re-arms itself would otherwise fire forever within one call.
   */
  fire(ms: number): number {
    let fired = 0;
    for (const [handle, timer] of [...this.pending]) {
      // A callback fired before may have cleared this timer.
      if (timer.ms !== ms || !this.pending.has(handle)) continue;
      this.pending.delete(handle);
      timer.callback();
      fired++;
    }
    return fired;
  }
}
