import type { McpServerFactory } from "@modelcontextprotocol/server";
import { errorResponse, RPC_ERROR, type RpcHandler } from "../rpc/mod.ts";
import type { McpSession } from "./mcp_bridge.ts";
import { importMcpBridge } from "./_late_modules.ts";

/**
 * The per-connection handler of an MCP-only server (`syn mcp-serve --tools` on stdio):
 * every message goes to the SDK through the bridge, behind our own NDJSON framing (the
 * 1 MiB line cap, parse errors answered rather than dropped). Unlike the validator's
 * handler it has no direct dialect: a method MCP does not know is the SDK's -32601.
 */
export function createMcpConnectionHandler(
  factory: McpServerFactory,
  options: { log?: (line: string) => void } = {},
): RpcHandler {
  const log = options.log ?? (() => {});
  let session: Promise<McpSession> | undefined;
  let send: (message: unknown) => Promise<void> = () => Promise.resolve();
  const open = () =>
    session ??= importMcpBridge().then(({ openMcpSession }) => openMcpSession(factory, send, log));
  return {
    attach(writer) {
      send = writer;
    },
    handle(request) {
      return open().then((opened) => opened.handle(request));
    },
    response(message) {
      session?.then((opened) => opened.response?.(message), () => {});
    },
    oversize(id, bytes) {
      log(`mcp:reject reason=payload_too_large bytes=${bytes}`);
      return errorResponse(id, {
        code: RPC_ERROR.invalidRequest,
        message: "Invalid request: line over 1 MiB",
      });
    },
    async close() {
      const opened = await session?.catch(() => undefined);
      await opened?.close();
    },
    log,
  };
}
