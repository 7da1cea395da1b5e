import { fileURLToPath } from "node:url";
import type { CliIo } from "../../lib/cli/mod.ts";
import { childEnv, killAfter } from "./child_env.ts";

/** The argv that starts this checkout's `main.ts`, for commands that spawn themselves. */
export const SELF_COMMAND: readonly string[] = [
  Deno.execPath(),
  "run",
  "-A",
  fileURLToPath(new URL("../../main.ts", import.meta.url)),
];

export interface FakeIo extends CliIo {
  /** Everything written to standard output so far. */
  readonly out: () => string;
  /** Everything written to standard error so far. */
  readonly err: () => string;
}

/** A `CliIo` with captured output, a fixed environment and optional standard input. */
export function fakeIo(
  options: { env?: Record<string, string>; stdin?: string; cwd?: string; terminal?: boolean } = {},
): FakeIo {
  let out = "";
  let err = "";
  const env = options.env ?? {};
  const input = new TextEncoder().encode(options.stdin ?? "");
  return {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    stdin: new ReadableStream({
      start(controller) {
        if (input.length) controller.enqueue(input);
        controller.close();
      },
    }),
    env: (name) => env[name],
    stderrIsTerminal: options.terminal ?? false,
    cwd: options.cwd ?? Deno.cwd(),
    selfCommand: SELF_COMMAND,
    out: () => out,
    err: () => err,
  };
}

/** Runs `deno run -A main.ts …args` as a subprocess and collects its output. */
export async function runSyn(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const command = new Deno.Command(SELF_COMMAND[0], {
    args: [...SELF_COMMAND.slice(1), ...args],
    clearEnv: true,
    env: childEnv(options.env),
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = command.spawn();
  const cancel = killAfter(child);
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const result = await child.output();
  cancel();
  const decoder = new TextDecoder();
  return {
    code: result.code,
    stdout: decoder.decode(result.stdout),
    stderr: decoder.decode(result.stderr),
  };
}
