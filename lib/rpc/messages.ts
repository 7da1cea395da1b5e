/** A JSON-RPC 2.0 request id: string or number (null only in error replies). */
export type JsonRpcId = string | number;

/** A request (with `id`) or a notification (without). */
export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id?: JsonRpcId;
  method: string;
  params?: unknown;
}

/** The `error` member of an error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A response: exactly one of `result` and `error`. */
export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: JsonRpcId | null; result: unknown }
  | { jsonrpc: "2.0"; id: JsonRpcId | null; error: JsonRpcErrorObject };

/** The error codes of JSON-RPC 2.0 §5.1. */
export const RPC_ERROR = Object.freeze({
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
});

/**
 * An error that becomes a JSON-RPC error reply: a numeric code and a message, never a
 * stack. Thrown by method handlers (`new RpcError(RPC_ERROR.invalidParams, "…")`).
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** A success response. */
export function resultResponse(id: JsonRpcId | null, result: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id, result };
}

/** An error response (`data` left out when it is undefined). */
export function errorResponse(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcResponse {
  const { code, message, data } = error;
  return {
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

/** True for a value that may be a request id (JSON-RPC 2.0 §4, fractions discouraged). */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}
