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
  /**
   * Whether `shell.exec` may run without bubblewrap (the user opted in): its path checks
   * come before the program opens the path, so a symlink swapped in between wins.
   */
  shellWithoutBubblewrap?: boolean;
  /** Where bubblewrap was looked for (`PATH`-style; default: the usual system folders). */
  bubblewrapSearchPath?: string;
}

/** What a tool gets to do its work. */
export interface ToolContext {
  policy: ToolPolicy;
  /** The warm sandbox holding exactly `policy`'s permissions. */
  sandbox: Sandbox;
  /** The call's deadline in ms (from `timeout_s` or the session default). */
  timeoutMs: number;
  /** Opens (once) the http cache, when the session has a state directory and keeps one. */
  httpCache?(): Promise<HttpCache | undefined>;
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

/**
 * What a call may do to the world, as the MCP tool annotations say it (`readOnlyHint`,
 * `destructiveHint`, `idempotentHint`, `openWorldHint`). Hints for a client deciding
 * whether to ask its user first — never a guarantee the sandbox relies on.
 */
export interface ToolEffects {
  /** Changes nothing in its environment. */
  readOnly: boolean;
  /** May replace or delete what exists (only meaningful when not read-only). */
  destructive: boolean;
  /** A second call with the same arguments has no further effect. */
  idempotent: boolean;
  /** Reaches beyond the sandbox root (the network). */
  openWorld: boolean;
}

/** A tool: a namespaced name, a JSON Schema for its args, and the code that runs it. */
export interface ToolDescriptor {
  /** Namespaced: `fs.read_text`, `composite.<tool_id>`. */
  name: string;
  description: string;
  /** JSON Schema (2020-12) of `args`; `default`s of top-level properties are applied. */
  argsSchema: Record<string, unknown>;
  /** What a call may do; a tool without them is taken to do anything (`UNKNOWN_EFFECTS`). */
  effects?: ToolEffects;
  /**
   * `false` when the tool never starts a program (then its calls run in a sandbox with no
   * `run` permission at all, and bubblewrap is not probed for them); a tool that does not
   * say is taken to start programs.
   */
  startsPrograms?: boolean;
  /**
   * Runs with validated args (defaults applied). Throws `ToolFailure` to refuse or fail;
   * anything else thrown becomes `io_error`.
   */
  run(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
  /** The call's deadline from its args (e.g. `timeout_s`), in ms; else the session default. */
  timeoutMs?(args: Record<string, unknown>): number | undefined;
}

/** What a tool that declares nothing may do: anything. */
export const UNKNOWN_EFFECTS: ToolEffects = Object.freeze({
  readOnly: false,
  destructive: true,
  idempotent: false,
  openWorld: true,
});

/**
 * The effects of calls made one after another (a composite's steps): read-only and
 * idempotent only when every one is, destructive and open-world when any one is.
 */
export function combineEffects(all: readonly ToolEffects[]): ToolEffects {
  return {
    readOnly: all.every((effects) => effects.readOnly),
    destructive: all.some((effects) => !effects.readOnly && effects.destructive),
    idempotent: all.every((effects) => effects.idempotent),
    openWorld: all.some((effects) => effects.openWorld),
  };
}
