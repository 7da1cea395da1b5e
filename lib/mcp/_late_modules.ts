/**
 * The modules that bring in the MCP SDK (and, for the tool server, syn's tools), imported
 * when first needed through computed specifiers: a literal `import()` makes `deno run`
 * resolve the module and its npm packages before the command starts, taken or not, and the
 * validator child (`mcp-serve --stdio`) answers plain JSON-RPC requests without them.
 * `deno compile` embeds these files by name (`scripts/compile_options.ts`).
 */

/** The SDK bridge for MCP over NDJSON and the validator's MCP server. */
export function importMcpBridge(): Promise<typeof import("./mcp_bridge.ts")> {
  return import(new URL("./mcp_bridge.ts", import.meta.url).href);
}

/** The Streamable HTTP server. */
export function importMcpHttpServer(): Promise<typeof import("./mcp_http_server.ts")> {
  return import(new URL("./mcp_http_server.ts", import.meta.url).href);
}

/** The MCP server of syn's sandboxed tools. */
export function importToolsMcpServer(): Promise<typeof import("./tools_mcp_server.ts")> {
  return import(new URL("./tools_mcp_server.ts", import.meta.url).href);
}
