/**
 * @module
 * The validator service of the MCP adapter spec: its tools over a `SchemaStore`, its
 * JSON-RPC server on stdio, TCP and Unix sockets (with the Model Context Protocol on
 * the same connections through the official SDK), the same MCP server over Streamable
 * HTTP, and the client `generate` uses. `serveToolsStdio` and `serveToolsHttp` serve syn's
 * sandboxed tools (a `ToolSession`) as an MCP server instead, on the same transports.
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
  type CountedValidator,
  openValidator,
  type OpenValidatorOptions,
} from "./open_validator.ts";
export { type McpEndpoint, type McpRole, resolveMcpEndpoint } from "./mcp_endpoint.ts";
export {
  claimReadyFile,
  type ClaimReadyFileOptions,
  DEFAULT_READY_FILE,
  httpReadyLine,
  readyFileContent,
  releaseReadyFile,
} from "./ready_file.ts";
export { type ToolResult } from "./tool_result.ts";
export {
  type BackendOptions,
  ValidatorService,
  type ValidatorServiceOptions,
} from "./validator_service.ts";
export {
  createValidatorHandler,
  type McpSession,
  type McpSessionFactory,
} from "./validator_handler.ts";
export {
  type RunningValidatorServer,
  startValidatorServer,
  type ValidatorEndpoint,
} from "./serve_validator.ts";
export { type ToolDefinition, toolParameterSchemas } from "./tool_definitions.ts";
export {
  type McpHttpServerOptions,
  type RunningMcpHttpServer,
  serveValidatorHttp,
  startMcpHttpServer,
} from "./serve_validator_http.ts";
export {
  type AnsweredToolCall,
  serveToolsHttp,
  serveToolsStdio,
  type ToolSessionOpener,
  type ToolsServeOptions,
} from "./serve_tools.ts";
