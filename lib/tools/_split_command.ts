import { ShellWordsError, splitShellWords as splitWords } from "../core/mod.ts";
import { ToolFailure } from "./tool_failure.ts";

/**
 * `shell.exec`'s `cmd` as argv, by syn's one shell-word splitter (see `splitShellWords` in
 * `lib/core`): refused shell syntax is a `ToolFailure` (`not_allowed`), a malformed line
 * one of `invalid_args`.
 */
export function splitShellWords(cmd: string): string[] {
  try {
    return splitWords(cmd);
  } catch (error) {
    if (error instanceof ShellWordsError) throw new ToolFailure(error.kind, error.message);
    throw error;
  }
}
