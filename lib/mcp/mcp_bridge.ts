/**
 * The Model Context Protocol side of the validator service, built on the official SDK
 * (`@modelcontextprotocol/server` v2). Our own NDJSON framing and error replies stay in
 * front (the SDK drops malformed lines silently); each connection hands its MCP
 * messages to the SDK's `serveStdio` entry through an in-process transport, so the SDK
 * decides the protocol era per connection: the `initialize` handshake (2025 revisions)
 * or the stateless 2026-07-28 revision opened by `server/discover`.
 */
import {
  fromJsonSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  McpServer,
  type McpServerFactory,
  ResourceNotFoundError,
  ResourceTemplate,
  type Transport,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { VERSION } from "../core/mod.ts";
import { type JsonRpcId, type JsonRpcRequest, NO_REPLY, RPC_ERROR, RpcError } from "../rpc/mod.ts";
import type { ToolResult } from "./tool_result.ts";
import type { ValidatorService } from "./validator_service.ts";

/** How long one MCP request may stay unanswered by the SDK before it is failed. */
const SDK_ANSWER_TIMEOUT_MS = 60_000;

/** Requests the SDK answers with a notification rather than a response. */
const ANSWERED_BY_NOTIFICATION = new Set(["subscriptions/listen"]);

/** Builds the MCP server: the spec's tools, and schemas and examples as resources. */
export function buildMcpServer(service: ValidatorService): McpServer {
  const server = new McpServer(
    { name: "syn", title: "syn validator service", version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        "Synesthetic asset schemas, examples, validation (JSON Schema 2020-12), RFC 6902 diff " +
        "and backend populate. Validate assets with validate_asset before persisting them.",
    },
  );
  for (const definition of service.definitions) registerServiceTool(server, service, definition);
  registerSchemaResources(server, service.store);
  registerExampleResources(server, service.store);
  return server;
}

/** One of the service's tools; a verdict with `ok: false` is a tool-level failure. */
function registerServiceTool(
  server: McpServer,
  service: ValidatorService,
  definition: ValidatorService["definitions"][number],
): void {
  server.registerTool(
    definition.name,
    {
      title: definition.title,
      description: definition.description,
      inputSchema: fromJsonSchema<Record<string, unknown>>(definition.inputSchema),
      outputSchema: fromJsonSchema<Record<string, unknown>>(definition.outputSchema),
    },
    async (args: Record<string, unknown>) => {
      let result: ToolResult;
      try {
        result = await service.call(definition.name, args ?? {});
      } catch (error) {
        const message = error instanceof RpcError ? error.message : "Internal error";
        return { content: [{ type: "text" as const, text: message }], isError: true };
      }
      return {
        content: [{ type: "text" as const, text: JSON.stringify(result) }],
        structuredContent: result,
        // A failed verdict (ok: false) is a tool-level failure the model should act on.
        isError: !result.ok,
      };
    },
  );
}

/** The JSON Schemas by name, as `syn://schemas/{name}`. */
function registerSchemaResources(server: McpServer, store: ValidatorService["store"]): void {
  server.registerResource(
    "schema",
    new ResourceTemplate("syn://schemas/{name}", {
      list: () => ({
        resources: store.listSchemas().map((entry) => ({
          uri: `syn://schemas/${encodeURIComponent(entry.name)}`,
          name: entry.name,
          title: `${entry.name} schema`,
          description: `JSON Schema ${entry.name}${entry.version ? ` ${entry.version}` : ""}`,
          mimeType: "application/schema+json",
        })),
      }),
    }),
    {
      title: "Schemas",
      description: "The JSON Schemas by name",
      mimeType: "application/schema+json",
    },
    (uri, variables) => {
      const found = store.getSchema(decodeVariable(variables.name));
      if (!found) throw new ResourceNotFoundError(uri.href);
      return jsonContents(uri.href, "application/schema+json", found.schema);
    },
  );
}

/** The example assets by listed path, as `syn://examples/{path}`. */
function registerExampleResources(server: McpServer, store: ValidatorService["store"]): void {
  server.registerResource(
    "example",
    new ResourceTemplate("syn://examples/{path}", {
      list: () => ({
        resources: store.listExamples().map((entry) => ({
          uri: `syn://examples/${encodeURIComponent(entry.path)}`,
          name: entry.component,
          title: `${entry.component} example`,
          description: entry.path,
          mimeType: "application/json",
        })),
      }),
    }),
    {
      title: "Examples",
      description: "Example assets by listed path",
      mimeType: "application/json",
    },
    (uri, variables) => {
      const found = store.getExample(decodeVariable(variables.path));
      if (!found) throw new ResourceNotFoundError(uri.href);
      return jsonContents(uri.href, "application/json", found.example);
    },
  );
}

function jsonContents(uri: string, mimeType: string, value: unknown) {
  return { contents: [{ uri, mimeType, text: JSON.stringify(value, null, 2) }] };
}

function decodeVariable(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join("/") : value ?? "";
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface Waiting {
  resolve(message: Record<string, unknown>): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The in-process transport between our connection and the SDK: inbound messages are
 * delivered one by one and their responses awaited, so MCP requests keep the
 * connection's request order; anything else the SDK sends goes out as it comes.
 * Requests reach the SDK under ids of our own: the reply frame echoes the client's id
 * (`dispatchLine` writes it), and the SDK discards requests whose id it does not accept
 * (fractions, integers past 2^53) without answering, which would stall the connection.
 * Only `subscriptions/listen` keeps the client's id, since its notifications cite it.
 */
class BridgeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #waiting = new Map<string, Waiting>();
  /** Client ids of requests the SDK answers on its own (`subscriptions/listen`). */
  readonly #passedThrough = new Set<JsonRpcId>();
  readonly #sendUnsolicited: (message: unknown) => Promise<void>;
  #nextId = 1;
  #closed = false;

  constructor(sendUnsolicited: (message: unknown) => Promise<void>) {
    this.#sendUnsolicited = sendUnsolicited;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const record = message as Record<string, unknown>;
    if (!("method" in record) && ("result" in record || "error" in record)) {
      const id = record.id as JsonRpcId;
      const waiting = typeof id === "string" ? this.#waiting.get(id) : undefined;
      if (waiting) {
        this.#waiting.delete(id as string);
        clearTimeout(waiting.timer);
        waiting.resolve(record);
        return Promise.resolve();
      }
      // A late answer under one of our own ids means nothing to the client: drop it.
      if (!this.#passedThrough.delete(id)) return Promise.resolve();
    }
    if (this.#closed) return Promise.resolve();
    return this.#sendUnsolicited(message);
  }

  /** Hands a request to the SDK and waits for its response. */
  request(request: JsonRpcRequest): Promise<Record<string, unknown>> {
    // A NUL-led string: no clash with the client's ids of passed-through requests.
    const id = `\u0000bridge-${this.#nextId++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve({
          error: {
            code: RPC_ERROR.internalError,
            message: "Internal error: no answer from the MCP layer",
          },
        });
      }, SDK_ANSWER_TIMEOUT_MS);
      this.#waiting.set(id, { resolve, timer });
      this.onmessage?.({ ...request, id } as unknown as JSONRPCMessage);
    });
  }

  /** Hands a notification (or a response to a request of the SDK's) to the SDK. */
  notify(message: Record<string, unknown>): void {
    this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  /** Hands a request to the SDK that answers it itself, under the client's own id. */
  passThrough(request: JsonRpcRequest & { id: JsonRpcId }): void {
    this.#passedThrough.add(request.id);
    this.onmessage?.(request as unknown as JSONRPCMessage);
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const [id, waiting] of this.#waiting) {
      clearTimeout(waiting.timer);
      waiting.resolve({
        error: { code: RPC_ERROR.internalError, message: "Internal error: connection closing" },
      });
      this.#waiting.delete(id);
    }
    this.onclose?.();
    return Promise.resolve();
  }
}

/** One connection's view of the MCP protocol bridge (see `mcp_bridge.ts`). */
export interface McpSession {
  /** Answers an MCP request (its result, or throws `RpcError`; `NO_REPLY` for notifications). */
  handle(request: JsonRpcRequest): Promise<unknown>;
  /** A response the client sent to a request of the server's. */
  response?(message: Record<string, unknown>): void;
  close(): Promise<void>;
}

/**
 * Opens the MCP session of one connection, for a server factory (`buildMcpServer` of the
 * validator, or any other tool set). `send` writes an unsolicited frame to the
 * connection; `log` receives the SDK's out-of-band errors.
 */
export function openMcpSession(
  factory: McpServerFactory,
  send: (message: unknown) => Promise<void>,
  log: (line: string) => void = () => {},
): McpSession {
  const transport = new BridgeTransport(send);
  const handle = serveStdio(factory, {
    transport,
    onerror: (error) => log(`mcp:sdk_error detail=${JSON.stringify(error.message)}`),
  });
  return {
    async handle(request) {
      if (request.id === undefined) {
        transport.notify(request as unknown as Record<string, unknown>);
        return NO_REPLY;
      }
      // The SDK discards a request it cannot parse without answering it: answer here.
      if (!isJSONRPCRequest({ ...request, id: 0 })) {
        throw new RpcError(
          RPC_ERROR.invalidParams,
          "Invalid params: MCP methods take an object (and _meta, if given, is an object)",
        );
      }
      if (ANSWERED_BY_NOTIFICATION.has(request.method)) {
        if (!isJSONRPCRequest(request)) {
          throw new RpcError(
            RPC_ERROR.invalidRequest,
            `Invalid request: ${request.method} needs a string or integer id`,
          );
        }
        transport.passThrough(request as JsonRpcRequest & { id: JsonRpcId });
        return NO_REPLY;
      }
      const response = await transport.request(request);
      if ("error" in response) {
        const error = response.error as { code?: unknown; message?: unknown; data?: unknown };
        throw new RpcError(
          typeof error?.code === "number" ? error.code : RPC_ERROR.internalError,
          typeof error?.message === "string" ? error.message : "Internal error",
          error?.data,
        );
      }
      return response.result;
    },
    response(message) {
      transport.notify(message);
    },
    async close() {
      await handle.close();
    },
  };
}
