/**
 * @module
 * The validator service of the MCP adapter spec: its tools over a `SchemaStore`, its
 * JSON-RPC server on stdio, TCP and Unix sockets (with the Model Context Protocol on
 * the same connections through the official SDK), the same MCP server over Streamable
 * HTTP, and the client `generate` uses. `serveToolsStdio` and `serveToolsHttp` serve syn's
 * sandboxed tools (a `ToolSession`) as an MCP server instead, on the same transports. The
 * servers are reached through `loadServerSide()`, which loads them at first use: a client
 * never evaluates them.
 *
 * ```ts
 * import { loadConfig } from "../core/mod.ts";
 * import { connectValidator } from "./mod.ts";
 * const validator = await connectValidator({
 *   config: loadConfig(() => undefined),
 *   selfCommand: [Deno.execPath(), "run", "-A", "main.ts"],
 * });
 * const verdict = await validator.validateAsset({ name: "demo" }, "synesthetic-asset");
 * // { ok: true, errors: [] } — or { ok: false, reason: "transport_error", detail } if unreachable
 * await validator.close();
 * ```
 */
export { connectValidator, type ConnectValidatorOptions } from "./connect_validator.ts";
export {
  resolveValidatorTarget,
  type ValidatorConfig,
  type ValidatorTarget,
} from "./validator_target.ts";
export {
  type ValidatorClient,
  validatorClientFromConnection,
  type ValidatorTransport,
  type ValidatorVerdict,
} from "./validator_client.ts";
export {
  countCalls,
  type CountedValidator,
  openValidator,
  type OpenValidatorOptions,
} from "./open_validator.ts";
export { type McpEndpoint, type McpRole, resolveMcpEndpoint } from "./mcp_endpoint.ts";
export { PAYLOAD_TOO_LARGE_RESULT, type ToolResult } from "./tool_result.ts";
export type { ToolDefinition } from "./tool_definitions.ts";
// The server half loads at first use (`loadServerSide`); only its types are named here.
export { loadServerSide, type ServerSide } from "./server_side.ts";
export type {
  BackendOptions,
  ValidatorService,
  ValidatorServiceOptions,
} from "./validator_service.ts";
export type { McpSession, McpSessionFactory } from "./validator_handler.ts";
export type { RunningValidatorServer, ValidatorEndpoint } from "./serve_validator.ts";
export type { McpHttpServerOptions, RunningMcpHttpServer } from "./serve_validator_http.ts";
export type { AnsweredToolCall, ToolSessionOpener, ToolsServeOptions } from "./serve_tools.ts";
