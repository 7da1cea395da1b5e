/**
 * @module
 * The command line: one file per subcommand, strict argument parsing, help texts and
 * the single place where errors become exit codes. Only what every start needs is loaded
 * here: each command's file, and what it imports, loads when that command runs.
 *
 * ```ts
 * import { COMMANDS, runCli } from "./mod.ts";
 * // const code = await runCli(["--version"], io, COMMANDS);
 * ```
 */
export { type CliIo, type Command, type CommandModule, EXIT } from "./io.ts";
export { runCli } from "./run_cli.ts";
export { COMMAND_FILES, COMMANDS } from "./commands.ts";
