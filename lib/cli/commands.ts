import type { Command } from "./io.ts";

/** Every subcommand, in the order `syn --help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: "generate",
    summary:
      "prompt → validated, logged Synesthetic asset (deterministic, gemini, openai, anthropic)",
    load: () => import("./generate.ts"),
  },
  {
    name: "validate",
    summary: "validate JSON files, folders or stdin against the asset schemas",
    load: () => import("./validate.ts"),
  },
  {
    name: "diff",
    summary: "RFC 6902 patch between two JSON documents (exit 1 when they differ)",
    load: () => import("./diff.ts"),
  },
  {
    name: "mcp-serve",
    summary: "the validator service and MCP server on stdio, TCP or a Unix socket",
    load: () => import("./mcp_serve.ts"),
  },
  {
    name: "mcp-proxy",
    summary: "record any MCP server's tool calls and serve promoted composites over its tools",
    load: () => import("./mcp_proxy.ts"),
  },
  {
    name: "tools",
    summary: "list the agent tools, or run one call in the permission sandbox",
    load: () => import("./tools.ts"),
  },
  {
    name: "chat",
    summary: "streaming agent chat: a REPL, or 'chat serve' for the WebSocket gateway and page",
    load: () => import("./chat.ts"),
  },
  {
    name: "synthesize",
    summary: "ingest recorded tool calls and turn repeated chains into composite tools",
    load: () => import("./synthesize.ts"),
  },
  {
    name: "preview",
    summary: "see and hear an asset in the browser, or write a PNG still of it",
    load: () => import("./preview.ts"),
  },
  {
    name: "critique",
    summary: "validate an asset through the validator service and check its quality",
    load: () => import("./critique.ts"),
  },
  {
    name: "patch",
    summary: "preview, apply (validated first) and rate RFC 6902 patches to assets",
    load: () => import("./patch.ts"),
  },
  {
    name: "schemas",
    summary: "list and read the asset schemas (embedded, or SYN_SCHEMAS_DIR)",
    load: () => import("./schemas.ts"),
  },
  {
    name: "examples",
    summary: "list and read example assets (embedded, or SYN_EXAMPLES_DIR)",
    load: () => import("./examples.ts"),
  },
];
