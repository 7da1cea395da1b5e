import type { Command } from "./io.ts";

/** Every subcommand, in the order `syn --help` lists them. */
export const COMMANDS: readonly Command[] = [];
