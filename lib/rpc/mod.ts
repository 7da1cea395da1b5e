/**
 * @module
 * JSON-RPC 2.0 over NDJSON: messages and error codes, line framing with the 1 MiB cap
 * (checked before parsing), a per-line dispatcher, connection serving over stdio, TCP,
 * Unix sockets and in-memory pipes, and a client that never throws or hangs.
 *
 * ```ts
 * import { createMemoryConnectionPair, RpcClient, serveConnection } from "./mod.ts";
 * const [serverSide, clientSide] = createMemoryConnectionPair();
 * serveConnection(serverSide, {
 *   handle: (request) => ({ echo: request.method }),
 *   oversize: (id) => ({ jsonrpc: "2.0", id, error: { code: -32600, message: "too large" } }),
 * });
 * const client = new RpcClient(clientSide);
 * await client.request("ping"); // { kind: "result", result: { echo: "ping" } }
 * await client.close();
 * ```
 */
export {
  errorResponse,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
  resultResponse,
  RPC_ERROR,
  RpcError,
} from "./messages.ts";
export { MAX_LINE_BYTES, type NdjsonLine, readNdjsonLines } from "./ndjson.ts";
export { dispatchLine, NO_REPLY, type RpcHandler } from "./dispatch_line.ts";
export {
  connectionFromConn,
  createMemoryConnectionPair,
  ListenerServer,
  type RpcConnection,
  serveConnection,
  settlesWithin,
  SHUTDOWN_GRACE_MS,
} from "./connection.ts";
export { RpcClient, type RpcOutcome } from "./rpc_client.ts";
