import type { Command } from "./io.ts";

/** Every subcommand, in the order `syn --help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: "diff",
    summary: "RFC 6902 patch between two JSON documents (exit 1 when they differ)",
    load: () => import("./diff.ts"),
  },
  {
    name: "examples",
    summary: "list and read example assets (embedded, or SYN_EXAMPLES_DIR)",
    load: () => import("./examples.ts"),
  },
  {
    name: "mcp-serve",
    summary: "the validator service and MCP server on stdio, TCP or a Unix socket",
    load: () => import("./mcp_serve.ts"),
  },
  {
    name: "schemas",
    summary: "list and read the asset schemas (embedded, or SYN_SCHEMAS_DIR)",
    load: () => import("./schemas.ts"),
  },
  {
    name: "validate",
    summary: "validate JSON files, folders or stdin against the asset schemas",
    load: () => import("./validate.ts"),
  },
];
