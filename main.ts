/**
 * Composition root: builds the real edges (stdio, cwd) and the configuration (environment,
 * then `.env`, read once) and runs the CLI.
 * Everything below `lib/` takes the world as parameters.
 */
import {
  loadConfig,
  neutralizeTerminalText,
  SerialWriter,
  type SynConfig,
  writeAll,
} from "./lib/core/mod.ts";
import { type CliIo, COMMANDS, runCli } from "./lib/cli/mod.ts";
import type * as NodeUtil from "node:util";

/**
 * How to start this program again: `deno run -A main.ts`, or the compiled binary alone.
 */
export function selfCommand(): string[] {
  const executable = Deno.execPath();
  const isDeno = /(^|\/)deno(\.exe)?$/.test(executable);
  return isDeno
    ? [
      executable,
      "run",
      "-A",
      "--unstable-worker-options",
      import.meta.filename!,
    ]
    : [executable];
}

/** `.env` files above this are not read (a `.env` is a handful of lines). */
export const MAX_DOT_ENV_BYTES = 64 * 1024;

/**
 * `.env` in the working folder, read once, when the configuration is first asked for
 * (`.env.sample` tells users to make one); the real environment always wins. A missing,
 * unreadable or oversized file is simply not used; a line that is not `NAME=value` is
 * ignored, and `warn` is told its number.
 */
export function readDotEnv(cwd: string, warn: (line: string) => void): Map<string, string> {
  try {
    const path = `${cwd.replace(/[\\/]+$/, "")}/.env`;
    const info = Deno.statSync(path);
    if (!info.isFile || info.size > MAX_DOT_ENV_BYTES) return new Map();
    const text = Deno.readTextFileSync(path);
    for (const line of dotEnvStrayLines(text)) {
      warn(`syn: .env line ${line} is not NAME=value; it is ignored\n`);
    }
    // node:util parseEnv: `NAME=value`, `export`, quotes, `#` comments; nothing expanded.
    // Loaded only when there is a file to parse: the first `node:` module a process loads
    // starts Deno's Node compatibility layer, most of a bare start's cost again.
    const { parseEnv }: typeof NodeUtil = globalThis.process.getBuiltinModule("node:util");
    const values = Object.entries(parseEnv(text));
    return new Map(values.filter((entry): entry is [string, string] => entry[1] !== undefined));
  } catch {
    return new Map();
  }
}

/**
 * The numbers (from 1) of the `.env` lines that are neither blank, a `#` comment, nor
 * `[export ]NAME=value` — the lines `parseEnv` drops without a word. The lines of a quoted
 * value that spans several lines belong to it.
 */
export function dotEnvStrayLines(text: string): number[] {
  const stray: number[] = [];
  let closing: string | undefined;
  text.split(/\r?\n/).forEach((line, index) => {
    if (closing !== undefined) {
      if (line.includes(closing)) closing = undefined;
      return;
    }
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const assignment = /^(?:export\s+)?[A-Za-z_][\w.-]*\s*=\s*(.*)$/.exec(trimmed);
    if (!assignment) {
      stray.push(index + 1);
      return;
    }
    const quote = /^["'`]/.exec(assignment[1])?.[0];
    if (quote && !assignment[1].slice(1).includes(quote)) closing = quote;
  });
  return stray;
}

/** Our own progress lines start with a carriage return, maybe an erase-line sequence. */
function progressPrefix(text: string): string {
  if (text.startsWith("\r\u001b[2K")) return "\r\u001b[2K";
  return text.startsWith("\r") ? "\r" : "";
}

/**
 * Standard error for humans and logs: writes are serialized and bounded, a closed stderr
 * is ignored rather than failing the program, and control characters and ANSI escapes in
 * what is written (provider text quoted in an error, a model's reply) are shown as text —
 * except the progress prefix syn writes itself.
 */
const stderr = new SerialWriter((bytes) => Deno.stderr.write(bytes));

function stderrWriter(): (text: string) => Promise<void> {
  const writer = stderr;
  return (text) => {
    const prefix = progressPrefix(text);
    return writer.write(prefix + neutralizeTerminalText(text.slice(prefix.length)));
  };
}

export function realIo(): CliIo {
  const cwd = Deno.cwd();
  let config: SynConfig | undefined;
  return {
    stdout: (text) => writeAll(Deno.stdout, text),
    stderr: stderrWriter(),
    stdin: { read: (buffer) => Deno.stdin.read(buffer) },
    // Read once, when a command first asks for it: `--version` and `--help` never do.
    get config() {
      if (config === undefined) {
        const warn = stderrWriter();
        const dotEnv = readDotEnv(cwd, (line) => void warn(line));
        config = loadConfig((name) => Deno.env.get(name) ?? dotEnv.get(name));
      }
      return config;
    },
    environment: () => Deno.env.toObject(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    get terminal() {
      if (!Deno.stdin.isTerminal() || !Deno.stderr.isTerminal()) return undefined;
      return {
        setRaw: (raw: boolean) => Deno.stdin.setRaw(raw),
        write: (text: string) => stderr.write(text),
      };
    },
    cwd,
    selfCommand: selfCommand(),
  };
}

/**
 * Lines logged without waiting (a server's shutdown line) are written before the exit; a
 * stderr that no longer takes anything holds the exit up for at most a second.
 */
async function flushStderr(): Promise<void> {
  // Most commands have written everything by now: then no timer is made at all (even
  // AbortSignal.timeout costs a tenth of a bare start).
  if (stderr.pendingBytes === 0) return;
  // AbortSignal.timeout, not setTimeout: Deno's first setTimeout loads node:timers, which
  // would cost every command a third of a bare start (docs/performance.md).
  const limit = new Promise<void>((resolve) =>
    AbortSignal.timeout(1000).addEventListener("abort", () => resolve())
  );
  await Promise.race([stderr.flush(), limit]);
}

if (import.meta.main) {
  const code = await runCli(Deno.args, realIo(), COMMANDS);
  await flushStderr();
  Deno.exit(code);
}
