/**
 * The environment every child process of a test gets: cleared, then only what a run
 * needs — so a user's MCP_*, LABS_*, provider keys or DENO_DIR cannot change a result or
 * hang a test. `extra` adds the variables the test is about.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
    DENO_NO_UPDATE_CHECK: "1",
  };
  for (const name of ["DENO_DIR", "HOME", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return { ...env, ...extra };
}

/** How long a test waits for a child before killing it (its stderr is then reported). */
export const CHILD_TIMEOUT_MS = 120_000;

/**
 * Kills `child` if it is still running after `ms`; returns the cancel function. A test
 * that waits on a child therefore always ends.
 */
export function killAfter(child: Deno.ChildProcess, ms = CHILD_TIMEOUT_MS): () => void {
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }, ms);
  return () => clearTimeout(timer);
}
