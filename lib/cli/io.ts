import type { ByteSource, SynConfig } from "../core/mod.ts";

/** What a command may touch of the outside world; `main.ts` builds the real one, tests a fake. */
export interface CliIo {
  /** Writes to standard output (no newline added). */
  stdout(text: string): void | Promise<void>;
  /** Writes to standard error (no newline added). */
  stderr(text: string): void | Promise<void>;
  /**
   * Standard input as bytes: read straight into a buffer (`Deno.stdin.read`) in the real
   * one, so a command reading it (the validator child its requests) never loads Deno's
   * streams; a stream in tests. Read it with core's `readLines`, `byteReader` or
   * `readStreamCapped`, which take either.
   */
  stdin: ReadableStream<Uint8Array> | ByteSource;
  /** The configuration, read once (environment, then `.env`) when first asked for; flags win. */
  config: SynConfig;
  /**
   * The whole process environment, for a child that should inherit it as a launcher
   * would (the upstream server of `syn mcp-proxy`). Absent in tests: the child gets none.
   */
  environment?(): Record<string, string>;
  /** Whether standard error is a terminal (progress lines are shown only then). */
  stderrIsTerminal: boolean;
  /**
   * Present when standard input and standard error are both a terminal: raw mode for a line
   * editor, and writes to standard error that keep its cursor movements (other stderr text
   * has its escapes shown as text). Absent in tests and when either is redirected.
   */
  terminal?: { setRaw(raw: boolean): void; write(text: string): Promise<void> };
  /** Current working directory. */
  cwd: string;
  /**
   * The argv that starts this very program (`deno run -A /abs/main.ts`, or the compiled
   * binary), used to spawn our own `mcp-serve --stdio` as a child.
   */
  selfCommand: readonly string[];
}

/** What a subcommand's file exports: callable as a plain function, so tests need no subprocess. */
export interface CommandModule {
  /** The full `syn <name> --help` text. */
  help: string;
  /** Runs the command; resolves to the exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

/**
 * A subcommand as `syn --help` lists it. Its module is imported only when it runs, so
 * `syn validate` does not pay for loading the LLM or chat code at start-up.
 */
export interface Command {
  name: string;
  /** One line for `syn --help`. */
  summary: string;
  load(): Promise<CommandModule>;
}

/** Exit codes shared by every command. */
export const EXIT = Object.freeze({
  ok: 0,
  /** A negative verdict: invalid asset, documents differ, generation failed. */
  failure: 1,
  /** Bad usage, or an IO or parse error. */
  usage: 2,
  /** Stopped by Ctrl-C (SIGINT): 128 + 2, as shells report it. */
  interrupted: 130,
});
