/**
 * `shell.exec`'s run (its descriptor, `SHELL_EXEC`, is in `shell_exec.ts`): the command
 * split into argv, the program and its arguments checked, then spawned by the sandbox,
 * inside bubblewrap where the session uses it.
 */
import { checkArguments, resolveProgram } from "./_argv_policy.ts";
import { splitShellWords } from "./_split_command.ts";
import { bubblewrapArgv, bubblewrapPath } from "./bubblewrap.ts";
import { killGroup } from "./sandbox.ts";
import type { ToolContext, ToolPolicy } from "./tool_descriptor.ts";
import { ToolFailure } from "./tool_failure.ts";
import { MAX_SHELL_OUTPUT_BYTES, SPAWN_GRACE_MS } from "./_shell_policy.ts";
import { compareCodePoints } from "../core/mod.ts";

const CHILD_ENV = Object.freeze({ PATH: "/usr/bin:/bin", LANG: "C.UTF-8" });

/**
 * Why `shell.exec` is refused without bubblewrap, and the two ways on. A path is checked
 * before the program opens it, so another process that swaps a symlink in between makes
 * the program read or write outside the root; inside bubblewrap nothing outside the root
 * is there to reach.
 */
export const NO_BUBBLEWRAP_MESSAGE =
  "shell.exec runs only inside bubblewrap, which is off or cannot run here: without it, a symlink another process swaps in after the path check is followed by the program, outside the root. Install bubblewrap (apt-get install bubblewrap, or dnf install bubblewrap), or accept that race with --shell-without-bubblewrap";

/** The bubblewrap `shell.exec` runs in under `policy`, or undefined (then only with the opt-in). */
function policyBubblewrap(policy: ToolPolicy): Promise<string | undefined> {
  return policy.bubblewrap
    ? bubblewrapPath(policy.bubblewrapSearchPath)
    : Promise.resolve(undefined);
}

/**
 * The executables the sandbox worker may start (`shell_exec.ts` exports it): bwrap, the allowlist where the user opted in to run without it, or none.
 */
export async function shellRunPermissions(policy: ToolPolicy): Promise<string[]> {
  const bwrap = await policyBubblewrap(policy);
  if (bwrap) return [bwrap];
  if (!policy.shellWithoutBubblewrap) return [];
  const paths: string[] = [];
  for (const name of policy.shellAllow) {
    try {
      paths.push(await resolveProgram(name, policy.shellAllow, { bubblewrap: false }));
    } catch {
      // refused or not installed: not granted
    }
  }
  return paths.sort(compareCodePoints);
}

/** Runs one `shell.exec` call with validated args (see `SHELL_EXEC`). */
export async function runShellExec(
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<unknown> {
  const { policy } = context;
  const words = splitShellWords(args.cmd as string);
  const bwrap = await policyBubblewrap(policy);
  if (!bwrap && !policy.shellWithoutBubblewrap) {
    throw new ToolFailure("sandbox_unavailable", NO_BUBBLEWRAP_MESSAGE);
  }
  const program = await resolveProgram(words[0], policy.shellAllow, { bubblewrap: !!bwrap });
  await checkArguments(words[0], words.slice(1), policy.root);
  const command = [program, ...words.slice(1)];
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
}

interface SpawnValue {
  exit_code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
}
