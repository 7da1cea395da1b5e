import {
  checkArguments,
  DEFAULT_SHELL_ALLOW,
  REFUSED_PROGRAMS,
  resolveProgram,
} from "./_argv_policy.ts";
import { splitShellWords } from "./_split_command.ts";
import { bubblewrapArgv, bubblewrapPath } from "./bubblewrap.ts";
import { killGroup } from "./sandbox.ts";
import type { ToolContext, ToolDescriptor, ToolPolicy } from "./tool_descriptor.ts";
import { ToolFailure } from "./tool_failure.ts";
import { compareCodePoints } from "../core/mod.ts";

export { DEFAULT_SHELL_ALLOW, REFUSED_PROGRAMS };

/** Output kept per stream (stdout, stderr); more sets `truncated` and stops the program. */
export const MAX_SHELL_OUTPUT_BYTES = 64 * 1024;
/** `timeout_s` bounds. */
export const MAX_SHELL_TIMEOUT_S = 300;
/** What the worker adds to a program's own deadline before the sandbox is recycled. */
const SPAWN_GRACE_MS = 1000;

const CHILD_ENV = Object.freeze({ PATH: "/usr/bin:/bin", LANG: "C.UTF-8" });

/**
 * The executables the sandbox worker may start: the resolved allowlist, or only
 * bubblewrap when `shell.exec` runs inside it.
 */
export async function shellRunPermissions(policy: ToolPolicy): Promise<string[]> {
  if (policy.bubblewrap) {
    const bwrap = await bubblewrapPath();
    if (bwrap) return [bwrap];
  }
  const paths: string[] = [];
  for (const name of policy.shellAllow) {
    try {
      paths.push(await resolveProgram(name, policy.shellAllow));
    } catch {
      // refused or not installed: not granted
    }
  }
  return paths.sort(compareCodePoints);
}

/** `shell.exec {cmd, timeout_s=20}` (Spectator §4), argv-only, in the sandbox. */
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
  async run(args, context: ToolContext) {
    const { policy } = context;
    const words = splitShellWords(args.cmd as string);
    const program = await resolveProgram(words[0], policy.shellAllow);
    await checkArguments(words[0], words.slice(1), policy.root);
    const command = [program, ...words.slice(1)];
    const bwrap = policy.bubblewrap ? await bubblewrapPath() : undefined;
    const argv = bwrap ? await bubblewrapArgv(bwrap, policy.root, command) : command;
    const deadlineMs = Math.min(Number(args.timeout_s) * 1000, context.timeoutMs - SPAWN_GRACE_MS);
    let pid: number | undefined;
    try {
      const value = await context.sandbox.request("spawn", {
        argv,
        cwd: policy.root,
        env: CHILD_ENV,
        timeoutMs: Math.max(1, deadlineMs),
        maxOutputBytes: MAX_SHELL_OUTPUT_BYTES,
      }, {
        timeoutMs: deadlineMs + SPAWN_GRACE_MS,
        onSpawn: (spawned) => (pid = spawned),
      }) as SpawnValue;
      if (value.timed_out) {
        throw new ToolFailure(
          "timeout",
          `${words[0]} did not finish within ${Math.round(deadlineMs / 1000)} s and was killed`,
        );
      }
      return {
        exit_code: value.exit_code,
        stdout: value.stdout,
        stderr: value.stderr,
        truncated: value.truncated,
        isolation: bwrap ? "bubblewrap" : "argv",
      };
    } finally {
      // Whatever the program left in its process group goes with it.
      if (pid !== undefined) killGroup(pid);
    }
  },
};

interface SpawnValue {
  exit_code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
}
