import { errorMessage, SynError, VERSION } from "../core/mod.ts";
import { closestName } from "./_closest_name.ts";
import { usageText } from "./_usage_text.ts";
import { type CliIo, type Command, EXIT } from "./io.ts";

function mainHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `syn ${VERSION} — Synesthetic assets and LLM agents, one tool

Usage:
  syn <command> [options]
  syn <command> --help     help for one command

Commands:
${lines.join("\n")}

Options:
  -h, --help      show this help
  -V, --version   print the version

Environment is read once at start (flags win over it, and it over a .env file in the
current folder); docs/configuration.md in the repository lists every variable.
`;
}

/** Error codes that mean the user's own input (a file, a config) is unusable: exit 2. */
const BAD_INPUT_CODES: ReadonlySet<string> = new Set([
  "io_error", // a named file cannot be read
  "parse_error", // … or parsed
  "too_large", // … or is beyond what the command takes
  "too_deep",
  "not_found", // a named tool, example or schema does not exist
  "config_error", // syn.jsonc
  "validator_config", // MCP_ENDPOINT and its companions
  "schema_invalid", // SYN_SCHEMAS_DIR
  "invalid_root", // --root
  "invalid_tool", // a synthesized tool syn cannot execute
]);

/**
 * Runs `syn` with its arguments. Maps errors to exit codes in one place: a
 * `UsageError`, or a capability's error that means the same (`usageText`: a bad setting
 * is worded with its flag) → 2 with a one-line hint; input the user named that cannot be read or
 * parsed, or a configuration that cannot work (`BAD_INPUT_CODES`) → 2 with its message; every other
 * failure of the job (a provider or network failure, a synthesis error, …) → 1 with the
 * message, never a stack.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  commands: readonly Command[],
): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    if (first === "help" && rest[0]) return runCli([rest[0], "--help"], io, commands);
    await io.stdout(mainHelp(commands));
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === "--version" || first === "-V" || first === "version") {
    await io.stdout(`syn ${VERSION}\n`);
    return EXIT.ok;
  }
  const command = commands.find((candidate) => candidate.name === first);
  if (!command) {
    const names = commands.map((candidate) => candidate.name);
    const guess = first.startsWith("-") ? undefined : closestName(first, names);
    const hint = guess ? ` (did you mean '${guess}'?)` : "";
    await io.stderr(
      `syn: unknown ${
        first.startsWith("-") ? "option" : "command"
      } '${first}'${hint}; see 'syn --help'\n`,
    );
    return EXIT.usage;
  }
  const module = await command.load();
  // After "--" every argument is an operand: `syn validate -- -h` validates a file named -h.
  const end = rest.indexOf("--");
  const options = end === -1 ? rest : rest.slice(0, end);
  if (options.includes("--help") || options.includes("-h")) {
    await io.stdout(module.help);
    return EXIT.ok;
  }
  try {
    return await module.run(rest, io);
  } catch (error) {
    const usage = usageText(error);
    if (usage !== undefined) {
      await io.stderr(`syn ${command.name}: ${usage}; see 'syn ${command.name} --help'\n`);
      return EXIT.usage;
    }
    if (error instanceof SynError) {
      await io.stderr(`syn ${command.name}: ${error.message}\n`);
      return BAD_INPUT_CODES.has(error.code) ? EXIT.usage : EXIT.failure;
    }
    await io.stderr(`syn ${command.name}: ${errorMessage(error)}\n`);
    return EXIT.failure;
  }
}
