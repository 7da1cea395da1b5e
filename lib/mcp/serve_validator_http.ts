/**
 * The validator service's MCP over Streamable HTTP, loaded on first use: the SDK's HTTP
 * side costs start-up time that the NDJSON transports do not need.
 */
import type { McpServerFactory } from "@modelcontextprotocol/server";
import type { McpHttpServerOptions, RunningMcpHttpServer } from "./mcp_http_server.ts";
import type { ValidatorService } from "./validator_service.ts";
import { importMcpBridge, importMcpHttpServer } from "./_late_modules.ts";

export type { McpHttpServerOptions, RunningMcpHttpServer };

/** Serves any MCP server factory (one tool set) over Streamable HTTP; see `mcp_http_server.ts`. */
export async function startMcpHttpServer(
  factory: McpServerFactory,
  options: McpHttpServerOptions,
): Promise<RunningMcpHttpServer> {
  const http = await importMcpHttpServer();
  return http.startMcpHttpServer(factory, options);
}

/** Serves the validator's tools and resources — the ones stdio serves — on `/mcp`. */
export async function serveValidatorHttp(
  service: ValidatorService,
  options: McpHttpServerOptions,
): Promise<RunningMcpHttpServer> {
  const { buildMcpServer } = await importMcpBridge();
  return await startMcpHttpServer(() => buildMcpServer(service), options);
}
