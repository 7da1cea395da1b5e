import { errorMessage, utf8ByteLength } from "../core/mod.ts";
import {
  type ChatErrorCode,
  type ChatEvent,
  chatEventToJson,
  type ChatFluxConfig,
  type ChatSession,
  type ChatSessionOptions,
  type Refusal,
  ReplyBuffer,
  SESSION_ID,
} from "../chat/mod.ts";
import { CHAT_PAGE } from "./_chat_page.ts";
import { OversizeMessage, ServerWebSocket, type Upgrade } from "./_web_socket_server.ts";

/** The wire protocol version (K-gent API §4). */
export const PROTOCOL_VERSION = "1.0.0";
/** Frames above this are refused with INVALID_MESSAGE; the socket stays open. */
export const MAX_FRAME_BYTES = 1024 * 1024;
/** A socket whose unsent data passes this is closed (1013); the client resumes by sequence. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** How long a resume waits for a socket to drain before it gives up on the reader. */
const REPLAY_STALL_MS = 30_000;
const MAX_CONTENT_CHARS = 64 * 1024;

type Role = "perturb" | "observe" | "chat";

/** How the gateway makes sessions; the CLI passes the model, tools, stores. */
export interface GatewayOptions {
  config: ChatFluxConfig;
  /** Builds a session (opening its checkpoint when there is a store). */
  openSession(id: string, agent: string): Promise<ChatSession>;
  /** Whether a session can come back from disk after it expired in memory. */
  persistent: boolean;
  /** Idle seconds before a session is dropped from memory. */
  sessionTtlSeconds: number;
  now?: () => number;
  log?: (line: string) => void;
  /** Unsent bytes past which a socket is closed with 1013 (default `MAX_BUFFERED_BYTES`). */
  maxBufferedBytes?: number;
}

interface Client {
  socket: ServerWebSocket;
  role: Role;
  subscriptions: Map<string, () => void>;
}

interface LiveSession {
  session: ChatSession;
  clients: Set<Client>;
}

/**
 * The WebSocket gateway: `/perturb/<agent>?session=ID` takes client frames,
 * `/observe/<agent>?session=ID` sends events, `/chat/<agent>?session=ID` does both on one
 * socket; `GET /` is the chat page. A disconnect never cancels a reply — it keeps filling
 * the session's buffer, and `resume` re-sends it from any sequence. Only `stop` cancels.
 */
export class ChatGateway {
  #options: GatewayOptions;
  #sessions = new Map<string, Promise<LiveSession>>();
  #expired = new Set<string>();
  #sweeper: ReturnType<typeof setInterval>;
  #slowClosed = 0;

  /** Sockets closed (1013) because their reader fell more than the cap behind. */
  get slowReadersClosed(): number {
    return this.#slowClosed;
  }

  /** Resolves when a reply has ended (`false` if the session or reply is unknown). */
  async replyFinished(sessionId: string, correlationId: string): Promise<boolean> {
    const live = await this.#sessions.get(sessionId);
    const reply = live?.session.reply(correlationId);
    if (!reply) return false;
    await reply.finished();
    return true;
  }

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.#sweeper = setInterval(
      () => this.#sweep(),
      Math.min(60_000, Math.max(250, options.sessionTtlSeconds * 250)),
    );
  }

  /** The `serveWebSocketHttp` handler. */
  handle = (request: Request, upgrade: Upgrade): Response => {
    const url = new URL(request.url);
    if (request.method === "GET" && (url.pathname === "/" || url.pathname === "/index.html")) {
      return new Response(CHAT_PAGE, {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy":
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
          "x-content-type-options": "nosniff",
          "cache-control": "no-store",
        },
      });
    }
    if (url.pathname === "/health") {
      return Response.json({ ok: true, protocol_version: PROTOCOL_VERSION });
    }
    const match = /^\/(perturb|observe|chat)\/([A-Za-z0-9_-]{1,64})$/.exec(url.pathname);
    if (!match) return new Response("Not found\n", { status: 404 });
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("This endpoint speaks WebSocket\n", { status: 426 });
    }
    const sessionId = url.searchParams.get("session") ?? "";
    if (!SESSION_ID.test(sessionId)) {
      return new Response("Give ?session=<id>: 1–64 letters, digits, '-' or '_'\n", {
        status: 400,
      });
    }
    if (!sameOrigin(request)) {
      // A page on another site must not drive this user's sessions and sandboxed tools.
      return new Response("Cross-origin WebSocket refused\n", { status: 403 });
    }
    let upgraded: ReturnType<Upgrade>;
    try {
      upgraded = upgrade({
        // A ping every heartbeat; a peer that has not answered the last one is dropped.
        idleTimeout: Math.max(1, Math.round(this.#options.config.heartbeat_interval)),
        maxMessageBytes: MAX_FRAME_BYTES,
      });
    } catch (error) {
      return new Response(`${errorMessage(error)}\n`, { status: 400 });
    }
    const { socket, response } = upgraded;
    this.#accept({ socket, role: match[1] as Role, subscriptions: new Map() }, sessionId, match[2]);
    return response;
  };

  #accept(client: Client, sessionId: string, agent: string): void {
    // Frames can arrive before the session is open (it may load a checkpoint): they wait
    // in order rather than being lost.
    const early: unknown[] = [];
    let live: LiveSession | undefined;
    let closed = false;
    const handle = (data: unknown) => {
      if (client.role === "observe" || !live) return;
      try {
        this.#onFrame(live, client, data);
      } catch (error) {
        this.#options.log?.(`chat:error ${errorMessage(error)}`);
      }
    };
    client.socket.onmessage = (event) => (live ? handle(event.data) : early.push(event.data));
    client.socket.onclose = () => {
      closed = true;
      live?.clients.delete(client);
      for (const off of client.subscriptions.values()) off();
      client.subscriptions.clear();
    };
    client.socket.onerror = () => {};
    client.socket.onopen = async () => {
      try {
        live = await this.#live(sessionId, agent);
      } catch (error) {
        this.#sendTo(client, rejection("SESSION_EXPIRED", errorMessage(error), ""));
        client.socket.close(1011, "session unavailable");
        return;
      }
      if (closed) return;
      live.clients.add(client);
      for (const data of early.splice(0)) handle(data);
    };
  }

  async #live(sessionId: string, agent: string): Promise<LiveSession> {
    if (this.#expired.has(sessionId) && !this.#options.persistent) {
      throw new Error("This session expired; start a new one");
    }
    let live = this.#sessions.get(sessionId);
    if (!live) {
      live = this.#options.openSession(sessionId, agent).then((session) => ({
        session,
        clients: new Set<Client>(),
      }));
      this.#sessions.set(sessionId, live);
      live.catch(() => this.#sessions.delete(sessionId));
    }
    return await live;
  }

  #onFrame(live: LiveSession, client: Client, data: unknown): void {
    const frame = parseFrame(data);
    if ("error" in frame) return this.#reject(live, client, frame.error, frame.correlationId ?? "");
    if (frame.action === "message") {
      const result = live.session.start(frame.message);
      if (!(result instanceof ReplyBuffer)) {
        return this.#reject(live, client, result, frame.message.correlation_id);
      }
      for (const target of this.#targets(live, client)) this.#subscribe(target, result, 0);
      return;
    }
    const reply = live.session.reply(frame.correlationId);
    if (!reply) {
      return this.#reject(live, client, {
        code: "INVALID_MESSAGE",
        message: "No reply with that correlation_id in this session",
      }, frame.correlationId);
    }
    if (frame.action === "stop") {
      live.session.stop(frame.correlationId);
      return;
    }
    for (const target of this.#targets(live, client)) {
      this.#subscribe(target, reply, frame.afterSequence);
    }
  }

  /** A `/chat` socket receives its own events; a `/perturb` frame's events go to the observers. */
  #targets(live: LiveSession, client: Client): Client[] {
    if (client.role === "chat") return [client];
    return [...live.clients].filter((other) => other.role === "observe");
  }

  /**
   * Sends a reply's events after `afterSequence`, then follows it live. A resume may have
   * megabytes buffered: those go out paced by the socket's drain (never more than half the
   * cap queued), so a reader that keeps up is never closed for the size of its backlog; one
   * that does not drain for `REPLAY_STALL_MS` is closed (1013) like a slow live reader.
   */
  #subscribe(client: Client, reply: ReplyBuffer, afterSequence: number): void {
    client.subscriptions.get(reply.correlationId)?.();
    let cancelled = false;
    client.subscriptions.set(reply.correlationId, () => (cancelled = true));
    void this.#replay(client, reply, afterSequence, () => cancelled).then((next) => {
      if (next === undefined || cancelled) return;
      const off = reply.subscribe((event) => this.#sendTo(client, event), next);
      client.subscriptions.set(reply.correlationId, off);
    });
  }

  /** The buffered events, paced; resolves to the last sequence sent (undefined: gave up). */
  async #replay(
    client: Client,
    reply: ReplyBuffer,
    afterSequence: number,
    cancelled: () => boolean,
  ): Promise<number | undefined> {
    const socket = client.socket;
    const cap = this.#options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    let next = afterSequence;
    while (next < reply.events.length) {
      for (const event of reply.events.slice(next)) {
        const since = Date.now();
        while (socket.readyState === ServerWebSocket.OPEN && socket.bufferedAmount > cap / 2) {
          if (Date.now() - since > REPLAY_STALL_MS) {
            this.#slowClosed++;
            socket.close(1013, "reader too slow; reconnect and resume");
            return undefined;
          }
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        if (cancelled() || socket.readyState !== ServerWebSocket.OPEN) return undefined;
        try {
          socket.send(chatEventToJson(event));
        } catch {
          return undefined;
        }
        next = event.sequence;
      }
    }
    return next;
  }

  #reject(live: LiveSession, client: Client, refusal: Refusal, correlationId: string): void {
    const event = rejection(
      refusal.code,
      refusal.message,
      correlationId,
      refusal.retry_after_seconds,
    );
    const targets = client.role === "chat" ? [client] : this.#targets(live, client);
    for (const target of targets) this.#sendTo(target, event);
  }

  #sendTo(client: Client, event: ChatEvent): void {
    const socket = client.socket;
    if (socket.readyState !== ServerWebSocket.OPEN) return;
    if (socket.bufferedAmount > (this.#options.maxBufferedBytes ?? MAX_BUFFERED_BYTES)) {
      // A reader this slow would make us hold its backlog twice; it resumes by sequence.
      this.#slowClosed++;
      this.#options.log?.(`chat:slow_reader_closed buffered=${socket.bufferedAmount}`);
      socket.close(1013, "reader too slow; reconnect and resume");
      return;
    }
    try {
      socket.send(chatEventToJson(event));
    } catch {
      // closed meanwhile
    }
  }

  #sweep(): void {
    const now = (this.#options.now ?? Date.now)();
    for (const [id, pending] of this.#sessions) {
      void pending.then((live) => {
        const idle = now - live.session.lastActive > this.#options.sessionTtlSeconds * 1000;
        if (idle && live.clients.size === 0 && this.#sessions.get(id) === pending) {
          this.#sessions.delete(id);
          this.#expired.add(id);
          this.#options.log?.(`chat:expired session=${id}`);
        }
      }, () => {});
    }
  }

  /** Number of sessions held in memory. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  close(): void {
    clearInterval(this.#sweeper);
  }
}

/**
 * Whether a browser's `Origin` (if any) is this server's own: the same host and port as
 * the request's `Host` (`http` or, behind a TLS proxy, `https`). Clients that are not
 * pages send no `Origin` and are let through.
 */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  try {
    const url = new URL(origin);
    return ["http:", "https:"].includes(url.protocol) &&
      url.host === (request.headers.get("host") ?? "").toLowerCase();
  } catch {
    return false;
  }
}

/** An error for a frame refused before any reply started: sequence 1, and no `done`. */
function rejection(
  code: ChatErrorCode,
  message: string,
  correlationId: string,
  retryAfter?: number,
): ChatEvent {
  return {
    event_type: "error",
    payload: {
      code,
      message,
      ...(retryAfter !== undefined ? { retry_after_seconds: retryAfter } : {}),
      correlation_id: correlationId,
    },
    sequence: 1,
    timestamp: Date.now() / 1000,
  };
}

type Frame =
  | { action: "message"; message: { content: string; mode: string; correlation_id: string } }
  | { action: "stop"; correlationId: string }
  | { action: "resume"; correlationId: string; afterSequence: number }
  | { error: Refusal; correlationId?: string };

function invalid(message: string, correlationId?: string): Frame {
  return { error: { code: "INVALID_MESSAGE", message }, correlationId };
}

/** Checks a client frame (K-gent API §4) without trusting any of it. */
export function parseFrame(data: unknown): Frame {
  if (data instanceof OversizeMessage) {
    return invalid(`Frame is larger than ${MAX_FRAME_BYTES} bytes`);
  }
  if (typeof data !== "string") return invalid("Frames must be JSON text");
  // UTF-16 length × 3 bounds the UTF-8 size: most frames need no count at all.
  if (
    data.length > MAX_FRAME_BYTES ||
    (data.length * 3 > MAX_FRAME_BYTES && utf8ByteLength(data) > MAX_FRAME_BYTES)
  ) {
    return invalid(`Frame is larger than ${MAX_FRAME_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return invalid("Frame is not JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return invalid("Frame must be a JSON object");
  }
  const frame = value as Record<string, unknown>;
  const body = frame.data !== null && typeof frame.data === "object" && !Array.isArray(frame.data)
    ? frame.data as Record<string, unknown>
    : undefined;
  const correlation = typeof body?.correlation_id === "string" ? body.correlation_id : undefined;
  if (correlation !== undefined && !/^[\x21-\x7e]{1,128}$/.test(correlation)) {
    return invalid("correlation_id must be 1–128 printable characters");
  }
  const versionOk = frame.version === PROTOCOL_VERSION ||
    (frame.version === undefined && frame.action !== "message");
  if (!versionOk) {
    return invalid(`Unsupported version: expected "${PROTOCOL_VERSION}"`, correlation);
  }
  if (!body) return invalid("Frame needs a data object", correlation);
  if (frame.action === "message") {
    const content = body.content;
    if (typeof content !== "string" || content.trim() === "") {
      return invalid("Message content must be a non-empty string", correlation);
    }
    if (content.length > MAX_CONTENT_CHARS) {
      return invalid(`Message content is longer than ${MAX_CONTENT_CHARS} characters`, correlation);
    }
    const mode = body.mode === undefined ? "reflect" : body.mode;
    if (typeof mode !== "string") return invalid("mode must be a string", correlation);
    return {
      action: "message",
      message: { content, mode, correlation_id: correlation ?? crypto.randomUUID() },
    };
  }
  if (frame.action === "stop" || frame.action === "resume") {
    if (!correlation) return invalid(`${frame.action} needs data.correlation_id`);
    if (frame.action === "stop") return { action: "stop", correlationId: correlation };
    const after = body.after_sequence ?? 0;
    if (typeof after !== "number" || !Number.isInteger(after) || after < 0) {
      return invalid("after_sequence must be a whole number ≥ 0", correlation);
    }
    return { action: "resume", correlationId: correlation, afterSequence: after };
  }
  return invalid(
    `Unknown action: ${String(frame.action).slice(0, 40)} (message, stop, resume)`,
    correlation,
  );
}

export type { ChatSessionOptions };
