/** Time as a parameter, so retry and timeout logic is tested with a fake clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** Timers as a parameter, so timeout logic is tested by firing them by hand. */
export interface Timers {
  /** Calls `callback` once after `ms`; returns a handle for `clear`. */
  set(callback: () => void, ms: number): unknown;
  /** Cancels a timer (an undefined or spent handle is fine). */
  clear(handle: unknown): void;
}

export const systemTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as number | undefined),
};

/** The longest delay a timer takes (2^31 − 1 ms, as for `setTimeout`); longer ones are cut to it. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Calls `callback` once after `ms` (cut to 0 … 2^31 − 1, NaN as 0), unless the returned
 * function cancels it first. For timeouts on a command's start path: Deno 2.9's first
 * `setTimeout` — even naming `clearTimeout` — loads its Node timers, 6–9 ms on our machines,
 * where an `AbortSignal.timeout` costs well under one. The runtime keeps the process
 * alive for the timer only while it can still fire: a cancelled one holds nothing of the
 * caller's, though the runtime keeps its empty signal until the delay has passed — right
 * for a call's timeout, wasteful for a loop that arms thousands a second (use `Timers`).
 */
export function startTimer(ms: number, callback: () => void): () => void {
  const delay = Number.isNaN(ms) ? 0 : Math.min(Math.max(Math.trunc(ms), 0), MAX_DELAY_MS);
  const signal = AbortSignal.timeout(delay);
  const fire = () => callback();
  signal.addEventListener("abort", fire, { once: true });
  return () => signal.removeEventListener("abort", fire);
}
