/**
 * The Model Context Protocol over Streamable HTTP, on the official SDK: 2025-era clients
 * (the `initialize` handshake) get a session each on the SDK's
 * `WebStandardStreamableHTTPServerTransport`; 2026-era requests go to the SDK's
 * `createMcpHandler` (stateless, one server instance per request). The SDK decides which
 * is which (`isLegacyRequest`). Host, Origin and token are checked in front by the edge
 * (`serveLocal`); the SDK's own DNS-rebinding options stay off.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { byteReader, type Clock, serveLocal, systemClock } from "../core/mod.ts";
import { concatBytes } from "../core/mod.ts";
import { settlesWithin, SHUTDOWN_GRACE_MS } from "../rpc/mod.ts";
import { McpSessionTable } from "./mcp_session_table.ts";

/** The path MCP is served on; anything else is 404. */
export const MCP_HTTP_PATH = "/mcp";
/** Live 2025-era sessions at most, by default. */
export const MAX_MCP_SESSIONS = 64;
/** A session with no request for this long is closed, by default (10 minutes). */
export const MCP_SESSION_IDLE_MS = 10 * 60_000;
/** The largest request body, by default: the same 1 MiB as an NDJSON line. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
/**
 * How long a request body may take to arrive, by default (30 s), then `408`: a peer that
 * sends its body a byte at a time would otherwise hold one of its in-flight slots forever.
 */
export const MCP_BODY_READ_MS = 30_000;

/** Options of {@linkcode McpHttpEndpoint}. */
export interface McpHttpHandlerOptions {
  maxSessions?: number;
  sessionIdleMs?: number;
  maxBodyBytes?: number;
  /** Longest wait for a whole request body, in ms (default {@linkcode MCP_BODY_READ_MS}). */
  bodyReadMs?: number;
  log?: (line: string) => void;
  clock?: Clock;
}

/** A session's transport and the server instance connected to it. */
interface LiveSession {
  transport: WebStandardStreamableHTTPServerTransport;
  close(): Promise<void>;
}

/**
 * The MCP endpoint as a web-standard handler, for a server factory (`buildMcpServer` for
 * the validator, or any other tool set): one server instance per 2025-era session, one
 * per 2026-era request.
 */
export class McpHttpEndpoint {
  readonly #factory: McpServerFactory;
  readonly #maxSessions: number;
  readonly #maxRequestBodySize: number;
  readonly #bodyReadMs: number;
  readonly #idleMs: number;
  readonly #log: (line: string) => void;
  readonly #sessions: McpSessionTable<LiveSession>;
  readonly #modern: McpHttpHandler;
  readonly #inFlight = new InFlight();
  #draining = false;

  constructor(factory: McpServerFactory, options: McpHttpHandlerOptions = {}) {
    this.#factory = factory;
    this.#maxSessions = options.maxSessions ?? MAX_MCP_SESSIONS;
    this.#maxRequestBodySize = options.maxBodyBytes ?? MAX_MCP_BODY_BYTES;
    this.#bodyReadMs = options.bodyReadMs ?? MCP_BODY_READ_MS;
    this.#idleMs = options.sessionIdleMs ?? MCP_SESSION_IDLE_MS;
    this.#log = options.log ?? (() => {});
    this.#sessions = new McpSessionTable<LiveSession>({
      maxSessions: this.#maxSessions,
      idleMs: this.#idleMs,
      clock: options.clock ?? systemClock,
    });
    this.#modern = createMcpHandler(factory, {
      legacy: "reject",
      maxRequestBodySize: this.#maxRequestBodySize,
      maxSubscriptions: this.#maxSessions,
      onerror: (error) => this.#onerror(error),
    });
  }

  /** Live 2025-era sessions. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Serves one request (any path; only {@linkcode MCP_HTTP_PATH} is MCP). `completed`
   * settles when the response has been delivered, or rejects when the client went away
   * (`Deno.ServeHandlerInfo.completed`): until then the request counts as in flight.
   */
  async handle(request: Request, completed: Promise<void>): Promise<Response> {
    if (new URL(request.url).pathname !== MCP_HTTP_PATH) {
      return new Response("Not found: MCP is served on /mcp\n", { status: 404 });
    }
    if (this.#draining) return jsonRpcError(503, "Server shutting down");
    // A GET holds a stream open until its session closes: not a request to wait for.
    if (request.method !== "GET") completed.finally(this.#inFlight.begin()).catch(() => {});
    // The SDK cancels an exchange when the request's signal aborts: only a client gone
    // away should do that, not (as Deno's signal also does) a response delivered.
    const gone = new AbortController();
    completed.catch(() => gone.abort());
    try {
      const body = await readBody(request, {
        maxBytes: this.#maxRequestBodySize,
        deadlineMs: this.#bodyReadMs,
      });
      if (body === "too_large") return jsonRpcError(413, "Payload Too Large", CLOSE);
      if (body === "too_slow") {
        this.#log(`mcp:reject reason=body_timeout limit_ms=${this.#bodyReadMs}`);
        return jsonRpcError(408, "Request Timeout: the body did not arrive in time", CLOSE);
      }
      // Built from parts: `new Request(request, …)` would still watch the runtime's signal.
      const forwarded = new Request(request.url, {
        method: request.method,
        headers: request.headers,
        body,
        signal: gone.signal,
      });
      const legacy = await isLegacyRequest(forwarded, undefined, {
        maxRequestBodySize: this.#maxRequestBodySize,
      });
      if (!legacy) {
        const response = await this.#modern.fetch(forwarded);
        if (isListen(response, body)) this.#endAfterIdle(gone, completed);
        return response;
      }
      return await this.#serveLegacy(forwarded, completed);
    } catch (error) {
      this.#onerror(error instanceof Error ? error : new Error(String(error)));
      return jsonRpcError(500, "Internal error", {}, -32603);
    }
  }

  /** Closes sessions idle past the limit; returns how many. */
  async expireIdle(): Promise<number> {
    const expired = await this.#sessions.expireIdle();
    for (const id of expired) this.#log(`mcp:session_expired id=${id}`);
    return expired.length;
  }

  /** Refuses new requests (503) and resolves when the requests being answered are done. */
  drain(): Promise<void> {
    this.#draining = true;
    return this.#inFlight.idle();
  }

  /** Closes every session and the 2026-era handler (ends their open streams). */
  async close(): Promise<void> {
    this.#draining = true;
    await this.#sessions.closeAll();
    await this.#modern.close();
  }

  /**
   * A 2026-era subscription stream ends after the idle time (the SDK closes it when its
   * request is cancelled); the client listens again. Held open, the streams would keep
   * every place under the subscription cap from everyone else, as sessions would.
   */
  #endAfterIdle(cancel: AbortController, completed: Promise<void>): void {
    const timer = setTimeout(() => cancel.abort(), this.#idleMs);
    completed.then(() => clearTimeout(timer), () => clearTimeout(timer));
  }

  #onerror(error: Error): void {
    this.#log(`mcp:sdk_error detail=${JSON.stringify(error.message)}`);
  }

  /** 2025-era traffic: a new session for an `initialize`, else the session named. */
  async #serveLegacy(request: Request, completed: Promise<void>): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      if (request.method === "POST") return await this.#openSession(request);
      return jsonRpcError(400, "Bad Request: Mcp-Session-Id header is required");
    }
    // A GET opens a standalone stream: it renews the session but does not keep it alive.
    if (request.method === "GET") {
      const streamed = this.#sessions.touch(id);
      if (!streamed) return jsonRpcError(404, "Session not found", {}, -32001);
      return await streamed.transport.handleRequest(request);
    }
    const session = this.#sessions.begin(id);
    if (!session) return jsonRpcError(404, "Session not found", {}, -32001);
    // Busy (never expired) until the answer, an SSE stream maybe, has been delivered.
    completed.finally(() => this.#sessions.end(id)).catch(() => {});
    return await session.transport.handleRequest(request);
  }

  async #openSession(request: Request): Promise<Response> {
    const sessions = this.#sessions;
    if (!sessions.reserve()) {
      this.#log(`mcp:reject reason=too_many_sessions limit=${this.#maxSessions}`);
      return jsonRpcError(
        503,
        `Server busy: ${this.#maxSessions} MCP sessions are open, the most it keeps; ` +
          "close one (DELETE /mcp) or retry later",
        { "retry-after": "30" },
      );
    }
    try {
      const server = await this.#factory({ era: "legacy", requestInfo: request });
      const session: LiveSession = {
        transport: new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          maxRequestBodySize: this.#maxRequestBodySize,
          onsessioninitialized: (id) => sessions.add(id, session),
          onsessionclosed: (id) => void (sessions.delete(id) && session.close()),
        }),
        close: () => server.close().catch((error) => this.#onerror(error)),
      };
      await server.connect(session.transport);
      const response = await session.transport.handleRequest(request);
      // Anything but an `initialize` was refused by the transport: nothing to keep.
      if (session.transport.sessionId === undefined) await session.close();
      return response;
    } finally {
      sessions.release();
    }
  }
}

/** Requests being answered, and a promise for when there are none. */
class InFlight {
  #count = 0;
  #waiters: (() => void)[] = [];

  /** Counts one more request; the returned function (idempotent) counts it done. */
  begin(): () => void {
    this.#count++;
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      if (--this.#count === 0) { for (const wake of this.#waiters.splice(0)) wake(); }
    };
  }

  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** Whether `response` is the SSE stream of a `subscriptions/listen` request. */
function isListen(response: Response, body: Uint8Array | null): boolean {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream") || !body) {
    return false;
  }
  try {
    return JSON.parse(new TextDecoder().decode(body))?.method === "subscriptions/listen";
  } catch {
    return false;
  }
}

/** A refusal that leaves a body unread also ends the connection it came on. */
const CLOSE = { connection: "close" };

/**
 * A request's whole body within `deadlineMs` and `maxBytes` (`null` for none), or why not.
 * A declared length over the cap is refused before a byte is read. The deadline cancels
 * the reader, which ends a pending read: no promise outlives one read, where racing each
 * read against one deadline promise would leave it a reaction per chunk (a million for a
 * body sent a byte at a time).
 */
async function readBody(
  request: Request,
  limits: { maxBytes: number; deadlineMs: number },
): Promise<Uint8Array<ArrayBuffer> | null | "too_large" | "too_slow"> {
  if (request.body === null) return null;
  if (Number(request.headers.get("content-length") ?? 0) > limits.maxBytes) return "too_large";
  const reader = byteReader(request.body);
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    reader.cancel().catch(() => {});
  }, limits.deadlineMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const next = await reader.read();
      if (late) return "too_slow";
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limits.maxBytes) return "too_large";
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
  return concatBytes(chunks, size) as Uint8Array<ArrayBuffer>;
}

/** A JSON-RPC error with no id, as the SDK's transport answers HTTP-level refusals. */
function jsonRpcError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, {
    status,
    headers,
  });
}

/** Options of {@linkcode startMcpHttpServer}. */
export interface McpHttpServerOptions extends McpHttpHandlerOptions {
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  /** The bearer token every request must carry; `undefined` serves without one. */
  token?: string;
  /** Extra names the Host may carry (a reverse proxy's). */
  allowHosts?: readonly string[];
  /** Origins, each in full, whose pages may call besides the server's own. */
  allowOrigins?: readonly string[];
  /** How long a shutdown waits for in-flight requests, then for streams to end (10 s). */
  shutdownGraceMs?: number;
}

/** A running MCP HTTP server. */
export interface RunningMcpHttpServer {
  readonly mode: "http";
  /** The MCP endpoint: `http://HOST:PORT/mcp`. */
  readonly url: string;
  /** Resolves when the server has stopped (after `shutdown`). */
  readonly finished: Promise<void>;
  /** Live 2025-era sessions. */
  readonly sessionCount: number;
  /**
   * Stops accepting, lets in-flight requests finish and be answered, then closes every
   * session and stream; resolves within twice the grace period at the latest. Idempotent.
   */
  shutdown(): Promise<void>;
}

/** Serves MCP over Streamable HTTP on `hostname:port` behind the edge (Host, Origin, token). */
export function startMcpHttpServer(
  factory: McpServerFactory,
  options: McpHttpServerOptions,
): RunningMcpHttpServer {
  const endpoint = new McpHttpEndpoint(factory, options);
  const served = serveLocal(
    {
      hostname: options.hostname,
      port: options.port,
      token: options.token,
      allowHosts: options.allowHosts,
      allowOrigins: options.allowOrigins,
    },
    (request, info) => endpoint.handle(request, info.completed),
  );
  const idleMs = options.sessionIdleMs ?? MCP_SESSION_IDLE_MS;
  const sweep = setInterval(
    () => void endpoint.expireIdle(),
    Math.min(Math.max(idleMs / 4, 1_000), 60_000),
  );
  const graceMs = options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
  let stopping: Promise<void> | undefined;
  return {
    mode: "http",
    url: new URL(MCP_HTTP_PATH, served.url).href,
    finished: served.server.finished,
    get sessionCount() {
      return endpoint.sessionCount;
    },
    shutdown() {
      stopping ??= (async () => {
        clearInterval(sweep);
        const stopped = served.server.shutdown();
        await settlesWithin(endpoint.drain(), graceMs);
        await endpoint.close();
        await settlesWithin(stopped, graceMs);
      })();
      return stopping;
    },
  };
}
