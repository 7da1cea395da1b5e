/**
 * @module
 * The command line: one file per subcommand, strict argument parsing, help texts and
 * the single place where errors become exit codes.
 *
 * ```ts
 * import { COMMANDS, runCli } from "./mod.ts";
 * // const code = await runCli(["--version"], io, COMMANDS);
 * ```
 */
export { type CliIo, type Command, type CommandModule, EXIT } from "./io.ts";
export { numberFlag, parseCommandArgs } from "./args.ts";
export { runCli } from "./run_cli.ts";
export { COMMANDS } from "./commands.ts";
