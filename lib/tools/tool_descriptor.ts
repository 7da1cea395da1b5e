import type { Sandbox } from "./sandbox.ts";
import type { HttpCache } from "./http_cache_port.ts";

/** What a session allows, derived from its capabilities and flags. */
export interface ToolPolicy {
  /** The sandbox root, a real absolute path. */
  root: string;
  /** `capabilities_granted` of the session's state (`net`, `net:<host>`, …). */
  granted: readonly string[];
  /** The global network allowlist (`--allow-host`); empty means none configured. */
  allowHosts: readonly string[];
  /** Executables `shell.exec` may start (names, e.g. `ls`); the default list plus additions. */
  shellAllow: readonly string[];
  /** Whether `shell.exec` runs inside bubblewrap (when it is installed and works). */
  bubblewrap: boolean;
}

/** What a tool gets to do its work. */
export interface ToolContext {
  policy: ToolPolicy;
  /** The warm sandbox holding exactly `policy`'s permissions. */
  sandbox: Sandbox;
  /** The call's deadline in ms (from `timeout_s` or the session default). */
  timeoutMs: number;
  /** The http cache, when the session has a state directory. */
  httpCache?: HttpCache;
  /** Resolves a host name to its addresses (injectable for tests). */
  resolveHost(hostname: string): Promise<string[]>;
  /** The current time in ms since the epoch (injectable). */
  now(): number;
  /**
   * Runs another tool through the same layer (checks, sandbox, traces): composite tools
   * call their steps with it.
   */
  callTool?(tool: string, args: Record<string, unknown>): Promise<import("./types.ts").ToolResult>;
}

/** A tool: a namespaced name, a JSON Schema for its args, and the code that runs it. */
export interface ToolDescriptor {
  /** Namespaced: `fs.read_text`, `composite.<tool_id>`. */
  name: string;
  description: string;
  /** JSON Schema (2020-12) of `args`; `default`s of top-level properties are applied. */
  argsSchema: Record<string, unknown>;
  /**
   * Runs with validated args (defaults applied). Throws `ToolFailure` to refuse or fail;
   * anything else thrown becomes `io_error`.
   */
  run(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
  /** The call's deadline from its args (e.g. `timeout_s`), in ms; else the session default. */
  timeoutMs?(args: Record<string, unknown>): number | undefined;
}
