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

/** Every subcommand, in the order `syn --help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: "generate",
    summary:
      "prompt → validated, logged Synesthetic asset (deterministic, gemini, openai, anthropic)",
    load: lazy("generate.ts"),
  },
  {
    name: "validate",
    summary: "validate JSON files, folders or stdin against the asset schemas",
    load: lazy("validate.ts"),
  },
  {
    name: "diff",
    summary: "RFC 6902 patch between two JSON documents (exit 1 when they differ)",
    load: lazy("diff.ts"),
  },
  {
    name: "mcp-serve",
    summary: "the validator service and MCP server on stdio, TCP or a Unix socket",
    load: lazy("mcp_serve.ts"),
  },
  {
    name: "tools",
    summary: "list the agent tools, or run one call in the permission sandbox",
    load: lazy("tools.ts"),
  },
  {
    name: "chat",
    summary: "streaming agent chat: a REPL, or 'chat serve' for the WebSocket gateway and page",
    load: lazy("chat.ts"),
  },
  {
    name: "synthesize",
    summary: "ingest recorded tool calls and turn repeated chains into composite tools",
    load: lazy("synthesize.ts"),
  },
  {
    name: "preview",
    summary: "see and hear an asset in the browser, or write a PNG still of it",
    load: lazy("preview.ts"),
  },
  {
    name: "critique",
    summary: "validate an asset through the validator service and check its quality",
    load: lazy("critique.ts"),
  },
  {
    name: "patch",
    summary: "preview, apply (validated first) and rate RFC 6902 patches to assets",
    load: lazy("patch.ts"),
  },
  {
    name: "schemas",
    summary: "list and read the asset schemas (embedded, or SYN_SCHEMAS_DIR)",
    load: lazy("schemas.ts"),
  },
  {
    name: "examples",
    summary: "list and read example assets (embedded, or SYN_EXAMPLES_DIR)",
    load: lazy("examples.ts"),
  },
];

/** Each command's file, from the repository root: what `deno compile` must embed by name. */
export const COMMAND_FILES: readonly string[] = [
  "lib/cli/generate.ts",
  "lib/cli/validate.ts",
  "lib/cli/diff.ts",
  "lib/cli/mcp_serve.ts",
  "lib/cli/tools.ts",
  "lib/cli/chat.ts",
  "lib/cli/synthesize.ts",
  "lib/cli/preview.ts",
  "lib/cli/critique.ts",
  "lib/cli/patch.ts",
  "lib/cli/schemas.ts",
  "lib/cli/examples.ts",
];
