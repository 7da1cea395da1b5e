/**
 * Composition root: builds the real edges (stdio, env, cwd) and runs the CLI.
 * Everything below `lib/` takes the world as parameters.
 */
import { fileURLToPath } from "node:url";
import { type CliIo, COMMANDS, runCli } from "./lib/cli/mod.ts";

const encoder = new TextEncoder();

async function writeAll(file: { write(p: Uint8Array): Promise<number> }, text: string) {
  const bytes = encoder.encode(text);
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** How to start this program again: `deno run -A main.ts`, or the compiled binary alone. */
export function selfCommand(): string[] {
  const executable = Deno.execPath();
  const isDeno = /(^|\/)deno(\.exe)?$/.test(executable);
  return isDeno
    ? [
      executable,
      "run",
      "-A",
      "--unstable-worker-options",
      fileURLToPath(new URL(import.meta.url)),
    ]
    : [executable];
}

export function realIo(): CliIo {
  return {
    stdout: (text) => writeAll(Deno.stdout, text),
    stderr: (text) => writeAll(Deno.stderr, text),
    stdin: Deno.stdin.readable,
    env: (name) => Deno.env.get(name),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    cwd: Deno.cwd(),
    selfCommand: selfCommand(),
  };
}

if (import.meta.main) {
  const code = await runCli(Deno.args, realIo(), COMMANDS);
  Deno.exit(code);
}
