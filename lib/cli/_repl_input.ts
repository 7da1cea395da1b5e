import { isByteSource } from "../core/mod.ts";
import { editedLines } from "./_line_editor.ts";
import type { CliIo } from "./io.ts";

/** The REPL's input: its lines, and whether the line editor draws the prompt itself. */
export interface ReplInput {
  lines: AsyncIterable<string>;
  editing: boolean;
}

/**
 * The lines of the chat REPL: edited at a `> ` prompt (arrows, history, …) when standard
 * input and standard error are a terminal, else the plain lines `plainLines` reads from
 * standard input (a pipe, a file, a test).
 */
export function replInput(
  io: CliIo,
  plainLines: (stdin: CliIo["stdin"]) => AsyncIterable<string>,
): ReplInput {
  const terminal = io.terminal;
  const stdin = io.stdin;
  if (!terminal || !isByteSource(stdin)) return { lines: plainLines(stdin), editing: false };
  const input = { setRaw: (raw: boolean) => terminal.setRaw(raw), read: stdin.read.bind(stdin) };
  return {
    lines: editedLines(input, (text) => terminal.write(text), { prompt: "> " }),
    editing: true,
  };
}
