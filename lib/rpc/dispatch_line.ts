import { errorMessage } from "../core/mod.ts";
import {
  isJsonRpcId,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
  RPC_ERROR,
  RpcError,
} from "./messages.ts";
import { type NdjsonLine, peekRequestId } from "./ndjson.ts";

/**
 * Returned by `RpcHandler.handle` for a request whose answer the handler writes itself
 * (through `attach`), or that by its protocol gets none: nothing is written for it.
 */
export const NO_REPLY: unique symbol = Symbol("NO_REPLY");

/** What a connection's requests are handed to, after framing and envelope checks. */
export interface RpcHandler {
  /**
   * Answers one well-formed request or notification. Called one message at a time, in
   * arrival order. Throw `RpcError` for a JSON-RPC error reply; any other throw becomes
   * -32603 without its message's details. The return value of a notification is dropped.
   */
  handle(request: JsonRpcRequest): Promise<unknown> | unknown;
  /** The reply to a line over the size cap, which is never parsed. */
  oversize(id: JsonRpcId | null, bytes: number): JsonRpcResponse;
  /** A response the peer sent to a request of ours (optional; ignored otherwise). */
  response?(message: Record<string, unknown>): void;
  /**
   * Called once when serving starts, with a function that writes an unsolicited frame
   * (a notification or a request of ours) to the connection between replies.
   */
  attach?(send: (message: unknown) => Promise<void>): void;
  /** Called once when the connection ends. */
  close?(): Promise<void> | void;
  /** Receives diagnostics (never written to the connection). */
  log?(line: string): void;
}

/**
 * Turns one framed line into at most one reply frame (`…\n`), or `undefined` when no
 * reply is due (a notification, a blank line, a response from the peer).
 */
export async function dispatchLine(
  line: NdjsonLine,
  handler: RpcHandler,
): Promise<string | undefined> {
  if (line.kind === "oversize") {
    return frame(handler.oversize(peekRequestId(line.prefix), line.bytes));
  }
  const text = line.text;
  if (isBlank(text)) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    // JSON-RPC 2.0 §5.1: invalid JSON → -32700, id null (it could not be read).
    return errorFrame(null, RPC_ERROR.parseError, "Parse error");
  }
  if (Array.isArray(message)) {
    // MCP spec §3: batches are not supported; exactly one request per line.
    return errorFrame(null, RPC_ERROR.invalidRequest, "Invalid request: batches are not supported");
  }
  if (message === null || typeof message !== "object") {
    return errorFrame(null, RPC_ERROR.invalidRequest, "Invalid request: not a JSON object");
  }
  const envelope = message as Record<string, unknown>;
  const hasId = Object.hasOwn(envelope, "id");
  if (hasId && !isJsonRpcId(envelope.id)) {
    return errorFrame(
      null,
      RPC_ERROR.invalidRequest,
      "Invalid request: id must be a string or number",
    );
  }
  const id = hasId ? envelope.id as JsonRpcId : null;
  // JSON-RPC 2.0 §5: the reply carries the request's id unchanged.
  const echoId = typeof id === "number" ? numberAsSent(text, id) : id;
  if (
    !Object.hasOwn(envelope, "method") &&
    (Object.hasOwn(envelope, "result") || Object.hasOwn(envelope, "error"))
  ) {
    // A response to a request of ours: JSON-RPC 2.0 §5 never answers a response.
    handler.response?.(envelope);
    return undefined;
  }
  if (envelope.jsonrpc !== "2.0") {
    return errorFrame(echoId, RPC_ERROR.invalidRequest, 'Invalid request: jsonrpc must be "2.0"');
  }
  if (typeof envelope.method !== "string") {
    return errorFrame(echoId, RPC_ERROR.invalidRequest, "Invalid request: method must be a string");
  }
  const params = envelope.params;
  if (params !== undefined && (params === null || typeof params !== "object")) {
    return errorFrame(
      echoId,
      RPC_ERROR.invalidRequest,
      "Invalid request: params must be an object",
    );
  }
  const request = envelope as unknown as JsonRpcRequest;
  let result: unknown;
  try {
    result = await handler.handle(request);
  } catch (error) {
    // JSON-RPC 2.0 §4.1: a notification gets no reply, not even an error.
    if (!hasId) return undefined;
    if (error instanceof RpcError) {
      return errorFrame(echoId, error.code, error.message, error.data);
    }
    handler.log?.(`rpc:error method=${request.method} detail=${describe(error)}`);
    return errorFrame(echoId, RPC_ERROR.internalError, "Internal error");
  }
  if (!hasId || result === NO_REPLY) return undefined;
  try {
    return JSON.stringify({ jsonrpc: "2.0", id: echoId, result }) + "\n";
  } catch (error) {
    handler.log?.(`rpc:error method=${request.method} detail=${describe(error)}`);
    return errorFrame(echoId, RPC_ERROR.internalError, "Internal error");
  }
}

/** `JSON.rawJSON` (V8, not yet in TypeScript's lib): a value serialized as the given text. */
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * The id to echo for a numeric request id. A safe integer is its own exact value; any
 * other number (past 2^53, a fraction, `-0`) is echoed as the text that was sent, since
 * a double may not hold its value (`12345678901234567890` would come back changed).
 */
function numberAsSent(text: string, id: number): unknown {
  if (Number.isSafeInteger(id) && !Object.is(id, -0)) return id;
  const source = topLevelIdSource(text);
  return source === undefined ? id : rawJson(source);
}

/**
 * The source text of the top-level `"id"` member's number, found by one iterative scan
 * (a reviver would recurse into every nested value, and a line nested 100,000 deep in
 * `params` would overflow the stack and drop the connection).
 */
export function topLevelIdSource(text: string): string | undefined {
  let depth = 0;
  let lastKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const token = text.slice(i, end + 1);
      let next = end + 1;
      while (next < text.length && " \t\r\n".includes(text[next])) next++;
      lastKey = depth === 1 && text[next] === ":" ? token : undefined;
      i = end;
      continue;
    }
    if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") depth--;
    else if (char === ":" && depth === 1 && lastKey === '"id"') {
      const match = /^\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i + 1, i + 400));
      return match?.[1];
    }
  }
  return undefined;
}

function errorFrame(id: unknown, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: "2.0", id, error }) + "\n";
}

function frame(response: JsonRpcResponse): string {
  return JSON.stringify(response) + "\n";
}

function isBlank(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code !== 32 && code !== 9 && code !== 13) return false;
  }
  return true;
}

function describe(error: unknown): string {
  return JSON.stringify(errorMessage(error));
}
