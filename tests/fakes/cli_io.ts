import { fileURLToPath } from "node:url";
import type { CliIo } from "../../lib/cli/mod.ts";
import { loadConfig } from "../../lib/core/mod.ts";
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

/** A `CliIo` with captured output, a configuration from `env` and optional standard input. */
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
    config: loadConfig((name) => env[name]),
    stderrIsTerminal: options.terminal ?? false,
    cwd: options.cwd ?? Deno.cwd(),
    selfCommand: SELF_COMMAND,
    out: () => out,
    err: () => err,
  };
}

/** Runs `command …args` as a subprocess with a cleared environment and collects its output. */
export async function runCommand(
  command: readonly string[],
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(command[0], {
    args: [...command.slice(1), ...args],
    clearEnv: true,
    env: childEnv(options.env),
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
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

/** Runs `deno run -A main.ts …args` as a subprocess and collects its output. */
export function runSyn(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCommand(SELF_COMMAND, args, options);
}

/**
 * Starts `syn …args` and reads `stream` until `pattern` matches, for commands that serve
 * until stopped. `stop()` sends SIGTERM and resolves to the exit code and all of stderr
 * read so far.
 */
export async function startSyn(
  args: string[],
  stream: "stdout" | "stderr",
  pattern: RegExp,
): Promise<
  {
    match: RegExpExecArray;
    stdout: Promise<string>;
    stop(): Promise<{ code: number; stderr: string }>;
  }
> {
  const child = new Deno.Command(SELF_COMMAND[0], {
    args: [...SELF_COMMAND.slice(1), ...args],
    clearEnv: true,
    env: childEnv(),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const cancel = killAfter(child, 60_000);
  const watched = (stream === "stdout" ? child.stdout : child.stderr)
    .pipeThrough(new TextDecoderStream()).getReader();
  const other = new Response(stream === "stdout" ? child.stderr : child.stdout).text();
  let text = "";
  let match: RegExpExecArray | null = null;
  while (!(match = pattern.exec(text))) {
    const { value, done } = await watched.read();
    if (done) throw new Error(`syn ${args.join(" ")} ended before ${pattern}: ${text}`);
    text += value;
  }
  return {
    match,
    stdout: stream === "stdout" ? Promise.resolve(text) : other,
    async stop() {
      child.kill("SIGTERM");
      const status = await child.status;
      cancel();
      await watched.cancel();
      return { code: status.code, stderr: stream === "stderr" ? text : await other };
    },
  };
}
