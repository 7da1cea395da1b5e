/** Exponential backoff with jitter (Labs spec: base 200 ms, factor 2.0, cap 5 s). */
export interface BackoffOptions {
  baseMs: number;
  factor: number;
  capMs: number;
  /** Fraction of the delay that is randomized, 0 for none. */
  jitter: number;
}

export const LABS_BACKOFF: Readonly<BackoffOptions> = Object.freeze({
  baseMs: 200,
  factor: 2,
  capMs: 5000,
  jitter: 0.2,
});

/**
 * Delay before retry number `retry` (0-based): `min(cap, base × factor^retry)`, then
 * scaled by a factor in `[1 - jitter, 1]` drawn from `options.random` (default
 * `Math.random`), so it never exceeds the cap.
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions & { random?: () => number } = LABS_BACKOFF,
): number {
  const raw = Math.min(options.capMs, options.baseMs * options.factor ** retry);
  const scale = 1 - options.jitter * (options.random ?? Math.random)();
  return Math.round(raw * scale);
}
