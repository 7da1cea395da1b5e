import type { Command, CommandModule } from "./io.ts";

/**
 * Imports a command's file when that command runs. The specifier is computed, not a
 * literal, on purpose: `deno run` builds the module graph of every literal `import()`
 * before the program starts, taken or not (measured with callgrind: one untaken literal
 * import of the chat command adds half of a bare start), so literals here would make every
 * command read and resolve every other command's graph, npm packages included.
 * `deno compile` embeds these files by name (`COMMAND_FILES`).
 */
function lazy(file: string): () => Promise<CommandModule> {
  return () => import(new URL(file, import.meta.url).href);
}

/** A command and the file (in `lib/cli/`) that implements it. */
type CommandEntry = Omit<Command, "load"> & { file: string };

/** Every subcommand, in the order `syn --help` lists them. */
const ENTRIES: readonly CommandEntry[] = [
  {
    name: "generate",
    summary:
      "prompt → validated, logged Synesthetic asset (deterministic, gemini, openai, anthropic)",
    file: "generate.ts",
  },
  {
    name: "validate",
    summary: "validate JSON files, folders or stdin against the asset schemas",
    file: "validate.ts",
  },
  {
    name: "diff",
    summary: "RFC 6902 patch between two JSON documents (exit 1 when they differ)",
    file: "diff.ts",
  },
  {
    name: "mcp-serve",
    summary:
      "the validator service as an MCP server (stdio, TCP, socket, HTTP); --tools: the tools",
    file: "mcp_serve.ts",
  },
  {
    name: "mcp-proxy",
    summary: "record any MCP server's tool calls and serve promoted composites over its tools",
    file: "mcp_proxy.ts",
  },
  {
    name: "tools",
    summary: "list the agent tools, or run one call in the permission sandbox",
    file: "tools.ts",
  },
  {
    name: "chat",
    summary: "streaming agent chat: a REPL, or 'chat serve' for the WebSocket gateway and page",
    file: "chat.ts",
  },
  {
    name: "synthesize",
    summary: "ingest recorded tool calls and turn repeated chains into composite tools",
    file: "synthesize.ts",
  },
  {
    name: "preview",
    summary: "see and hear an asset in the browser, or write a PNG still of it",
    file: "preview.ts",
  },
  {
    name: "critique",
    summary: "validate an asset through the validator service and check its quality",
    file: "critique.ts",
  },
  {
    name: "patch",
    summary: "preview, apply (validated first) and rate RFC 6902 patches to assets",
    file: "patch.ts",
  },
  {
    name: "schemas",
    summary: "list and read the asset schemas (embedded, or SYN_SCHEMAS_DIR)",
    file: "schemas.ts",
  },
  {
    name: "examples",
    summary: "list and read example assets (embedded, or SYN_EXAMPLES_DIR)",
    file: "examples.ts",
  },
];

/** Every subcommand, each loaded only when it runs. */
export const COMMANDS: readonly (Command & { file: string })[] = ENTRIES.map((entry) => ({
  ...entry,
  load: lazy(entry.file),
}));

/** Each command's file, from the repository root: what `deno compile` must embed by name. */
export const COMMAND_FILES: readonly string[] = COMMANDS.map((command) =>
  `lib/cli/${command.file}`
);
