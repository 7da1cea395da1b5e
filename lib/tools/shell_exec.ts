import { bubblewrapPath } from "./bubblewrap.ts";
import { runShellExec } from "./_shell_exec_run.ts";
import { MAX_SHELL_TIMEOUT_S, SPAWN_GRACE_MS } from "./_shell_policy.ts";
import type { ToolDescriptor } from "./tool_descriptor.ts";

export { DEFAULT_SHELL_ALLOW, REFUSED_PROGRAMS } from "./_shell_policy.ts";
export { shellRunPermissions } from "./_shell_exec_run.ts";

/**
 * True when `shell.exec` can run inside bubblewrap here (see `bubblewrapPath` in
 * `bubblewrap.ts`), probed once per process and search path.
 */
export async function detectBubblewrap(searchPath?: string): Promise<boolean> {
  return (await bubblewrapPath(searchPath)) !== undefined;
}

/**
 * `shell.exec {cmd, timeout_s=20}` (Spectator §4), argv-only, in the sandbox. Its checks
 * and run are in `_shell_exec_run.ts`.
 */
export const SHELL_EXEC: ToolDescriptor = {
  name: "shell.exec",
  description:
    "Run one allowlisted program with arguments in the sandbox root (no shell: no pipes, redirection, variables or globs). A non-zero exit is still ok: true with exit_code.",
  argsSchema: {
    type: "object",
    properties: {
      cmd: { type: "string", minLength: 1, maxLength: 8192 },
      timeout_s: { type: "integer", minimum: 1, maximum: MAX_SHELL_TIMEOUT_S, default: 20 },
    },
    required: ["cmd"],
    additionalProperties: false,
  },
  // The allowlist can be widened (--shell-allow), so nothing is promised: a program may
  // change or remove files in the root, and running it twice may differ.
  effects: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  startsPrograms: true,
  timeoutMs: (args) => Number(args.timeout_s) * 1000 + SPAWN_GRACE_MS,
  run: runShellExec,
};
