import { type Clock, systemClock } from "../core/mod.ts";

/**
 * A session's entropy budget as a refilling bucket: it holds at most `capacity`
 * (`entropy_budget`), spends what each reply costs, and refills linearly so that an empty
 * bucket is full again after `refillSeconds`. `retryAfterSeconds` says when a cost can
 * next be afforded — the `retry_after_seconds` of a `RATE_LIMITED` error.
 */
export class EntropyBucket {
  readonly capacity: number;
  readonly refillSeconds: number;
  #level: number;
  #at: number;
  #clock: Clock;

  /** The bucket starts full; `clock` (default `systemClock`) measures the refill. */
  constructor(
    capacity: number,
    options: { refillSeconds?: number; clock?: Clock; level?: number } = {},
  ) {
    this.capacity = capacity;
    this.refillSeconds = options.refillSeconds ?? 60;
    this.#clock = options.clock ?? systemClock;
    this.#at = this.#clock.now();
    this.#level = Math.min(capacity, options.level ?? capacity);
  }

  /** Entropy available now. */
  available(): number {
    const now = this.#clock.now();
    const rate = this.capacity / this.refillSeconds;
    this.#level = Math.min(this.capacity, this.#level + ((now - this.#at) / 1000) * rate);
    this.#at = now;
    return this.#level;
  }

  /** Spends `cost` if it is available; false (nothing spent) otherwise. */
  trySpend(cost: number): boolean {
    if (cost > this.available() + 1e-12) return false;
    this.#level = Math.max(0, this.#level - cost);
    return true;
  }

  /** Whole seconds until `cost` is available (0 when it is now; never below 1 otherwise). */
  retryAfterSeconds(cost: number): number {
    const missing = cost - this.available();
    if (missing <= 1e-12) return 0;
    if (cost > this.capacity) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.ceil(missing / (this.capacity / this.refillSeconds)));
  }
}
