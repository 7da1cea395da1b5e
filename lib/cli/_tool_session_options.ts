import { resolvePath, SynError, UsageError } from "../core/mod.ts";
import { stateDirectory } from "./_state_dir.ts";
import { isCapability, ToolSession, type ToolSessionOptions } from "../tools/mod.ts";
import { numberFlag } from "./args.ts";
import type { CliIo } from "./io.ts";
import type { SandboxFlagValues } from "./_sandbox_flags.ts";

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
    root: resolvePath(io.cwd, values.root),
    granted: grants,
    allowHosts: values.allowHosts ?? [],
    shellAllow: (values["shell-allow"] ?? []).flatMap((list) => list.split(","))
      .map((name) => name.trim()).filter(Boolean),
    bubblewrap: values["no-bubblewrap"] ? "off" : "auto",
    shellWithoutBubblewrap: values["shell-without-bubblewrap"] === true,
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
