/**
 * syn's sandboxed tools as an MCP server on stdio and Streamable HTTP. Every MCP server
 * instance (a stdio connection, an HTTP session, a stateless HTTP request) opens its own
 * tool session through `openSession` — so promoted composites appear in a new session
 * without a restart — and closes it with the instance. The SDK is loaded on first use.
 */
import type { McpServer, McpServerFactory } from "@modelcontextprotocol/server";
import type { RpcConnection } from "../rpc/mod.ts";
import type { ToolSession } from "../tools/mod.ts";
import { startValidatorServer } from "./serve_validator.ts";
import type { RunningValidatorServer } from "./serve_validator.ts";
import {
  type McpHttpServerOptions,
  type RunningMcpHttpServer,
  startMcpHttpServer,
} from "./serve_validator_http.ts";
import { createMcpConnectionHandler } from "./mcp_connection_handler.ts";
import type { AnsweredToolCall } from "./tools_mcp_server.ts";
import { importToolsMcpServer } from "./_late_modules.ts";

export type { AnsweredToolCall };

/** Opens the tool session of one MCP server instance: its registry, root and grants. */
export type ToolSessionOpener = () => Promise<ToolSession>;

/** Options of {@linkcode serveToolsStdio} and {@linkcode serveToolsHttp}. */
export interface ToolsServeOptions {
  openSession: ToolSessionOpener;
  /** Told about every answered call (to record it); must not throw. */
  onCall?: (call: AnsweredToolCall) => void;
  log?: (line: string) => void;
}

/** A factory whose instances answer calls without an MCP session id as `sessionId`. */
function toolsFactory(options: ToolsServeOptions, sessionId: () => string): McpServerFactory {
  return async (): Promise<McpServer> => {
    const { buildToolsMcpServer } = await importToolsMcpServer();
    const session = await options.openSession();
    return buildToolsMcpServer(session, { sessionId: sessionId(), onCall: options.onCall });
  };
}

/**
 * Serves the tools on one stdio connection (NDJSON framing in front, the SDK behind);
 * every call of the connection belongs to one session id.
 */
export function serveToolsStdio(
  connection: RpcConnection,
  options: ToolsServeOptions,
): Promise<RunningValidatorServer> {
  const connectionId = crypto.randomUUID();
  const factory = toolsFactory(options, () => connectionId);
  return startValidatorServer(
    { mode: "stdio", connection },
    () => createMcpConnectionHandler(factory, { log: options.log }),
    { log: options.log },
  );
}

/**
 * Serves the tools over Streamable HTTP behind the edge (Host, Origin, token), like the
 * validator's `--http`: a call's session is its MCP session id (2025-era clients), or one
 * id per request for the stateless 2026-era protocol.
 */
export function serveToolsHttp(
  options: ToolsServeOptions & McpHttpServerOptions,
): Promise<RunningMcpHttpServer> {
  return startMcpHttpServer(toolsFactory(options, () => crypto.randomUUID()), options);
}
