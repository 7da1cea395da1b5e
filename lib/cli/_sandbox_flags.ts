/**
 * The flags of syn's sandboxed tools, with no import: `mcp-serve` parses them on every start,
 * and the tools themselves (`lib/tools`, with `node:sqlite`, `node:fs` and `node:dns`) load
 * only when `--tools` is given.
 */

/** The sandbox flags `syn tools run` and `syn mcp-serve --tools` share (parseArgs options). */
export const SANDBOX_FLAGS = {
  root: { type: "string" },
  grant: { type: "string", multiple: true },
  "shell-allow": { type: "string", multiple: true },
  "timeout-s": { type: "string" },
  "state-dir": { type: "string" },
  "no-cache": { type: "boolean" },
  "no-bubblewrap": { type: "boolean" },
  "shell-without-bubblewrap": { type: "boolean" },
} as const;

/** The values of {@linkcode SANDBOX_FLAGS}, plus the network allowlist (its flag differs). */
export interface SandboxFlagValues {
  root?: string;
  grant?: string[];
  "shell-allow"?: string[];
  "timeout-s"?: string;
  "state-dir"?: string;
  "no-cache"?: boolean;
  "no-bubblewrap"?: boolean;
  "shell-without-bubblewrap"?: boolean;
  allowHosts?: string[];
}

/**
 * The flags `mcp-serve --tools` adds; `--allow-host` keeps its HTTP meaning there, so the
 * tools' network allowlist is `--net-allow-host`. Here, not beside the tool server, so that
 * `mcp-serve` reads its flags without loading the tools or the event store.
 */
export const TOOLS_FLAGS = {
  ...SANDBOX_FLAGS,
  "net-allow-host": { type: "string", multiple: true },
} as const;
