import { resultResponse, RPC_ERROR, RpcError, type RpcHandler } from "../rpc/mod.ts";
import { PAYLOAD_TOO_LARGE_RESULT, type ToolResult } from "./tool_result.ts";
import type { ValidatorService } from "./validator_service.ts";
import type { McpSession } from "./mcp_bridge.ts";
import { importMcpBridge } from "./_late_modules.ts";

/**
 * Builds the MCP session of one connection; called on its first MCP method only.
 * `send` writes an unsolicited frame to the connection.
 */
export type { McpSession };

export type McpSessionFactory = (
  service: ValidatorService,
  send: (message: unknown) => Promise<void>,
  log: (line: string) => void,
) => Promise<McpSession>;

/** The SDK bridge, imported on first use: it costs start-up time the direct dialect does not need. */
const loadMcpSession: McpSessionFactory = async (service, send, log) => {
  const { buildMcpServer, openMcpSession } = await importMcpBridge();
  return openMcpSession(() => buildMcpServer(service), send, log);
};

/**
 * The adapter spec's answer to a direct-dialect method it does not serve (§6 "Unsupported",
 * as the reference adapter answers `{"method":"nope"}`): a result, not a JSON-RPC error.
 */
export const UNSUPPORTED_RESULT: ToolResult = Object.freeze({
  ok: false,
  reason: "unsupported",
  detail: "tool not implemented",
}) as ToolResult;

/**
 * Whether a method belongs to the Model Context Protocol rather than to the spec's
 * direct dialect: `initialize`, `ping`, and every `namespace/name` method.
 */
export function isMcpMethod(method: string): boolean {
  return method === "initialize" || method === "ping" || method.includes("/");
}

/**
 * The per-connection handler of the validator service: the spec's tools by method name
 * (`{"method":"validate_asset","params":{…}}`), and — on the same connection — MCP
 * methods through the SDK bridge (`mcp: false` turns MCP off). Any other direct-dialect
 * name gets `UNSUPPORTED_RESULT`; an MCP method with MCP off gets JSON-RPC -32601.
 */
export function createValidatorHandler(
  service: ValidatorService,
  options: { log?: (line: string) => void; mcp?: McpSessionFactory | false } = {},
): RpcHandler {
  const log = options.log ?? (() => {});
  const factory = options.mcp === false ? undefined : options.mcp ?? loadMcpSession;
  let session: Promise<McpSession> | undefined;
  let send: (message: unknown) => Promise<void> = () => Promise.resolve();
  return {
    attach(writer) {
      send = writer;
    },
    handle(request) {
      if (service.has(request.method)) return service.call(request.method, request.params);
      if (!isMcpMethod(request.method)) return UNSUPPORTED_RESULT;
      if (!factory) {
        throw new RpcError(RPC_ERROR.methodNotFound, `Method not found: ${request.method}`);
      }
      session ??= factory(service, send, log);
      return session.then((open) => open.handle(request));
    },
    response(message) {
      // A session that failed to open has answered its request with -32603 already.
      session?.then((open) => open.response?.(message), () => {});
    },
    oversize(id, bytes) {
      log(`mcp:reject reason=payload_too_large bytes=${bytes}`);
      return resultResponse(id, PAYLOAD_TOO_LARGE_RESULT);
    },
    async close() {
      const open = await session?.catch(() => undefined);
      await open?.close();
    },
    log,
  };
}
