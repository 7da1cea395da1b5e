import { MAX_SHELL_TIMEOUT_S, SPAWN_GRACE_MS } from "./_shell_policy.ts";
import type { ToolDescriptor, ToolPolicy } from "./tool_descriptor.ts";

export { DEFAULT_SHELL_ALLOW, REFUSED_PROGRAMS } from "./_shell_policy.ts";

/**
 * `shell.exec`'s checks and run, and bubblewrap, load at the first call that needs them,
 * through computed specifiers: `deno run` reads and resolves the graph of every literal
 * `import()` before the program starts, taken or not. `deno compile` embeds both files by
 * name (`scripts/compile_options.ts`).
 */
function importShellExecRun(): Promise<typeof import("./_shell_exec_run.ts")> {
  return import(new URL("./_shell_exec_run.ts", import.meta.url).href);
}

function importBubblewrap(): Promise<typeof import("./bubblewrap.ts")> {
  return import(new URL("./bubblewrap.ts", import.meta.url).href);
}

/**
 * True when `shell.exec` can run inside bubblewrap here (see `bubblewrapPath` in
 * `bubblewrap.ts`), probed once per process and search path.
 */
export async function detectBubblewrap(searchPath?: string): Promise<boolean> {
  return (await (await importBubblewrap()).bubblewrapPath(searchPath)) !== undefined;
}

/**
 * The executables the sandbox worker may start: the resolved allowlist, or only
 * bubblewrap when `shell.exec` runs inside it.
 */
export async function shellRunPermissions(policy: ToolPolicy): Promise<string[]> {
  return (await importShellExecRun()).shellRunPermissions(policy);
}

/**
 * `shell.exec {cmd, timeout_s=20}` (Spectator §4), argv-only, in the sandbox. Its checks
 * and run (`_shell_exec_run.ts`) load at its first call.
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
  async run(args, context) {
    return (await importShellExecRun()).runShellExec(args, context);
  },
};
