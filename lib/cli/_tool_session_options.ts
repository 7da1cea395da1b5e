import { resolve } from "node:path";
import { SynError, UsageError } from "../core/mod.ts";
import { stateDirectory } from "./_state_dir.ts";
import { isCapability, ToolSession, type ToolSessionOptions } from "../tools/mod.ts";
import { numberFlag } from "./args.ts";
import type { CliIo } from "./io.ts";

/** The sandbox flags `syn tools run` and `syn mcp-serve --tools` share (parseArgs options). */
export const SANDBOX_FLAGS = {
  root: { type: "string" },
  grant: { type: "string", multiple: true },
  "shell-allow": { type: "string", multiple: true },
  "timeout-s": { type: "string" },
  "state-dir": { type: "string" },
  "no-cache": { type: "boolean" },
  "no-bubblewrap": { type: "boolean" },
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
  allowHosts?: string[];
}

/**
 * A tool session's options from the sandbox flags, checked the same way wherever syn's
 * tools run: `--root` required, every `--grant` a capability, `--timeout-s` in range.
 */
export function toolSessionOptions(values: SandboxFlagValues, io: CliIo): ToolSessionOptions {
  if (!values.root) throw new UsageError("--root <dir> is required: the folder the tool may touch");
  const grants = values.grant ?? [];
  for (const cap of grants) {
    if (!isCapability(cap)) throw new UsageError(`--grant: not a capability: ${cap}`);
  }
  const timeoutS = numberFlag("timeout-s", values["timeout-s"], { min: 0.001, max: 3600 });
  return {
    root: resolve(io.cwd, values.root),
    granted: grants,
    allowHosts: values.allowHosts ?? [],
    shellAllow: (values["shell-allow"] ?? []).flatMap((list) => list.split(","))
      .map((name) => name.trim()).filter(Boolean),
    bubblewrap: values["no-bubblewrap"] ? "off" : "auto",
    bubblewrapSearchPath: io.config.system.path,
    stateDir: stateDirectory(io, values["state-dir"]),
    cache: !values["no-cache"],
    maxTimeoutMs: timeoutS === undefined ? undefined : timeoutS * 1000,
    secrets: io.config.secrets,
  };
}

/** Opens a tool session; a root that is missing or not a folder is bad usage (exit 2). */
export async function openToolSession(options: ToolSessionOptions): Promise<ToolSession> {
  try {
    return await ToolSession.open(options);
  } catch (error) {
    if (error instanceof SynError && error.code === "invalid_root") {
      throw new UsageError(`--root: ${error.message}`);
    }
    throw error;
  }
}

/**
 * The flags `mcp-serve --tools` adds; `--allow-host` keeps its HTTP meaning there, so the
 * tools' network allowlist is `--net-allow-host`. Here, not beside the tool server, so that
 * `mcp-serve` reads its flags without loading the event store.
 */
export const TOOLS_FLAGS = {
  ...SANDBOX_FLAGS,
  "net-allow-host": { type: "string", multiple: true },
} as const;
