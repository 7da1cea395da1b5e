/** Options of {@linkcode waitUntil}. */
export interface WaitUntilOptions {
  /** The longest wait before it fails, in ms (default 10 s). */
  timeoutMs?: number;
  /** The pause between two checks, in ms (default 25). */
  intervalMs?: number;
}

/**
 * Checks `check` until it answers true, pausing between checks; fails with
 * `timed out waiting for <what>` once `timeoutMs` has passed. For what a test cannot be told
 * directly (a line a child process writes, a file appearing): an error `check` throws ends
 * the wait at once.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  options: WaitUntilOptions = {},
): Promise<void> {
  const { timeoutMs = 10_000, intervalMs = 25 } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
