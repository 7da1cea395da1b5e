/**
 * The environment every child process of a test gets: cleared, then only what a run
 * needs — so a user's MCP_*, LABS_*, provider keys or colour settings cannot change a
 * result or hang a test. `extra` adds the variables the test is about.
 *
 * `DENO_DIR` is always set, to the cache this test run uses: a child `deno` then finds
 * every npm package the parent has, even when `extra` moves `HOME`, and never tries to
 * download into another cache (which fails offline as a bare "Connection closed").
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
    DENO_NO_UPDATE_CHECK: "1",
    DENO_DIR: denoDir(),
  };
  // The certificates a child trusts when it must fetch a dependency from the registry (no
  // proxy settings: a test's own traffic goes to loopback).
  for (const name of ["HOME", "TMPDIR", "DENO_CERT", "DENO_TLS_CA_STORE", "NODE_EXTRA_CA_CERTS"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  // A config folder of this test run: a child syn that makes its chat key (syn chat with a
  // state folder and no SYN_CHAT_KEY) never writes into the user's own.
  env.XDG_CONFIG_HOME = testConfigHome();
  return { ...env, ...extra };
}

let configHome: string | undefined;

/** One temporary config folder per test process, removed when the process ends. */
function testConfigHome(): string {
  if (configHome === undefined) {
    const made = Deno.makeTempDirSync({ prefix: "syn-test-config-" });
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(made, { recursive: true });
      } catch {
        // already gone
      }
    });
    configHome = made;
  }
  return configHome;
}

/**
 * The Deno cache this process uses: `DENO_DIR`, else Deno's default (`~/Library/Caches/deno`
 * on macOS, `$XDG_CACHE_HOME/deno` or `~/.cache/deno` elsewhere).
 */
export function denoDir(): string {
  const explicit = Deno.env.get("DENO_DIR");
  if (explicit) return explicit;
  const home = Deno.env.get("HOME") ?? "";
  if (Deno.build.os === "darwin") return `${home}/Library/Caches/deno`;
  return `${Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`}/deno`;
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

/**
 * Collects a Node-style stream (a child's stderr handed over by a library such as the MCP
 * SDK's `StdioClientTransport`) so a failing test can show it; `text()` is what came so far.
 */
export function collectStream(
  stream: { on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown } | null,
): { text(): string } {
  let text = "";
  const decoder = new TextDecoder();
  stream?.on("data", (chunk) => {
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  });
  return { text: () => text };
}
