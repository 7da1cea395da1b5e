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
