/**
 * syn's sandboxed tools as an MCP server (`syn mcp-serve --tools`): each tool of a tool
 * session's registry — the baseline tools and the composites registered in it — becomes an
 * MCP tool with its argument schema and its effects as annotations; each call runs through
 * the session (`ToolSession.call`: argument checks, capabilities, real paths, the sandbox)
 * exactly as `syn tools run` and `syn chat` run it, and its tool result becomes the MCP
 * result. MCP tool names allow dots (SEP-986: `[A-Za-z0-9._-]{1,128}`), so syn's names
 * are kept.
 */
import {
  type CallToolResult,
  fromJsonSchema,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
  McpServer,
  type ToolAnnotations,
} from "@modelcontextprotocol/server";
import { VERSION } from "../core/mod.ts";
import {
  type ToolDescriptor,
  type ToolEffects,
  type ToolResult,
  type ToolSession,
  UNKNOWN_EFFECTS,
} from "../tools/mod.ts";

/** One answered call, for whoever records it. */
export interface AnsweredToolCall {
  /** The MCP session id, or the id given for the connection. */
  sessionId: string;
  tool: string;
  args: Record<string, unknown>;
  result: ToolResult;
  startedMs: number;
  latencyMs: number;
}

/** Options of {@linkcode buildToolsMcpServer}. */
export interface ToolsMcpServerOptions {
  /** The session of a call that arrives without an MCP session id (stdio, stateless). */
  sessionId: string;
  /** Told about every answered call (never awaited; it must not throw). */
  onCall?: (call: AnsweredToolCall) => void;
  now?: () => number;
}

/**
 * The SDK validates arguments before a handler runs, with its own messages: here the tool
 * session does that (as for every other caller), so a refusal is a tool result with
 * `invalid_args` and is recorded like any call.
 */
const CHECKED_BY_SESSION: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/** The MCP annotations of a tool's effects. */
export function toolAnnotations(effects: ToolEffects = UNKNOWN_EFFECTS): ToolAnnotations {
  return {
    readOnlyHint: effects.readOnly,
    // MCP: destructiveHint and idempotentHint are meaningful only when not read-only.
    ...(effects.readOnly ? {} : { destructiveHint: effects.destructive }),
    idempotentHint: effects.idempotent,
    openWorldHint: effects.openWorld,
  };
}

/**
 * The MCP result of a tool result: `structuredContent` is the tool result without its
 * call id (a per-server counter that means nothing to the client and would make equal
 * answers differ), a text content holds its JSON, and `ok: false` is `isError: true` (a
 * refusal the model should read, not a protocol error).
 */
export function toolCallResult(result: ToolResult): CallToolResult {
  const { id: _id, ...answer } = result;
  return {
    content: [{ type: "text", text: JSON.stringify(answer) }],
    structuredContent: answer as unknown as Record<string, unknown>,
    isError: !result.ok,
  };
}

/** An MCP server offering the session's tools; closing the server closes the session. */
export function buildToolsMcpServer(
  session: ToolSession,
  options: ToolsMcpServerOptions,
): McpServer {
  const server = new McpServer(
    { name: "syn-tools", title: "syn sandboxed tools", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: "Files, programs and the network inside one sandbox root: paths are " +
        "relative to it and must stay inside it. A refusal is a tool result with an error " +
        "code (path_escape, capability_required, not_allowed, …), not a protocol error.",
    },
  );
  let calls = 0;
  const callId = () => `mcp-${++calls}`;
  for (const descriptor of session.registry.list()) {
    registerTool(server, session, descriptor, { ...options, callId });
  }
  const closed = server.server.onclose;
  server.server.onclose = () => {
    session.close();
    closed?.();
  };
  return server;
}

function registerTool(
  server: McpServer,
  session: ToolSession,
  descriptor: ToolDescriptor,
  options: ToolsMcpServerOptions & { callId: () => string },
): void {
  const now = options.now ?? Date.now;
  server.registerTool(
    descriptor.name,
    {
      description: descriptor.description,
      inputSchema: fromJsonSchema<Record<string, unknown>>(
        descriptor.argsSchema,
        CHECKED_BY_SESSION,
      ),
      annotations: toolAnnotations(descriptor.effects),
    },
    async (args: Record<string, unknown>, context) => {
      const startedMs = now();
      const started = performance.now();
      const callArgs = args ?? {};
      const result = await session.call({
        id: options.callId(),
        tool: descriptor.name,
        args: callArgs,
      });
      options.onCall?.({
        sessionId: context.sessionId ?? options.sessionId,
        tool: descriptor.name,
        args: callArgs,
        result,
        startedMs,
        latencyMs: performance.now() - started,
      });
      return toolCallResult(result);
    },
  );
}
