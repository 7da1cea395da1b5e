/**
 * The chat gateway as a web-standard handler, `(request, info) => Response`, over the
 * standard `WebSocket` interface: `Deno.upgradeWebSocket` by default, any function of the
 * same shape in tests. The runtime's server and the edge checks (Host, Origin, token) sit
 * in front of it, in `lib/core/serve_local.ts`; this file is the protocol only.
 */
import {
  type Clock,
  ConnectionLimit,
  errorMessage,
  systemClock,
  systemTimers,
  type Timers,
} from "../core/mod.ts";
import { type ChatErrorCode, type ChatEvent, chatEventToJson } from "./chat_event.ts";
import type { ChatFluxConfig } from "./chat_flux_config.ts";
import { SESSION_ID } from "./checkpoint.ts";
import type { ChatSession, Refusal } from "./chat_session.ts";
import { EntropyBucket } from "./entropy_bucket.ts";
import { ReplyBuffer } from "./reply_buffer.ts";
import { CHAT_PAGE } from "./chat_page.ts";
import { chatPageFor, type PageEngine } from "./chat_page_engine.ts";
import { type ClientFrame, type ClientFrameParser, clientFrameParser } from "./client_frame.ts";

/** The wire protocol version (K-gent API §4). */
export const PROTOCOL_VERSION = "1.0.0";
/** A socket whose unsent data passes this is closed (1013); the client resumes by sequence. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** Sessions held in memory at once (default of `maxSessions`). */
export const DEFAULT_MAX_SESSIONS = 64;
/** Open WebSockets, all peers together (default of `maxSockets`). */
export const DEFAULT_MAX_SOCKETS = 256;
/** Open WebSockets of one peer address (default of `maxSocketsPerPeer`). */
export const DEFAULT_MAX_SOCKETS_PER_PEER = 64;
/**
 * Entropy one peer address may spend across all its sessions, by default (`--peer-entropy-budget`):
 * fifty sessions' own default budgets (0.10 each), so the users behind one reverse proxy —
 * one address for all — each get their normal replies, while one address still cannot buy
 * unbounded entropy by making up session ids.
 */
export const DEFAULT_PEER_ENTROPY_BUDGET = 5.0;
/** Peers whose entropy budget is remembered at once; a full bucket is forgotten first. */
const MAX_CLIENT_BUDGETS = 4096;
/** How long a resume waits for a socket to drain before it gives up on the reader. */
const REPLAY_STALL_MS = 30_000;
/** Frames a client may send before its session is open; they wait, in order. */
const MAX_EARLY_FRAMES = 64;
/** The agent names of the paths (and of the page's `?agent=`). */
export const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

type Role = "perturb" | "observe" | "chat";

/** Upgrades a request to a WebSocket: `Deno.upgradeWebSocket`'s shape. */
export type UpgradeWebSocket = (
  request: Request,
  options: { idleTimeout: number },
) => { socket: WebSocket; response: Response };

/** Who is asking: the peer's address (`Deno.ServeHandlerInfo`'s shape). */
export interface RequestInfo {
  remoteAddr: { hostname: string };
}

/** How the gateway makes sessions; the CLI passes the model, tools, stores. */
export interface GatewayOptions {
  config: ChatFluxConfig;
  /** Builds a session (opening its checkpoint when there is a store). */
  openSession(id: string, agent: string): Promise<ChatSession>;
  /** Whether a session can come back from disk after it expired in memory. */
  persistent: boolean;
  /** Idle seconds before a session is closed and dropped from memory. */
  sessionTtlSeconds: number;
  /** Time (default `systemClock`). */
  clock?: Clock;
  /** The session sweeper's timer (default `systemTimers`). */
  timers?: Timers;
  log?: (line: string) => void;
  /** Unsent bytes past which a socket is closed with 1013 (default `MAX_BUFFERED_BYTES`). */
  maxBufferedBytes?: number;
  /** Sessions in memory at once; a socket for one more is refused (default 64). */
  maxSessions?: number;
  /** Open WebSockets at once (default 256). */
  maxSockets?: number;
  /** Open WebSockets of one peer address (default 64). */
  maxSocketsPerPeer?: number;
  /**
   * Entropy one peer address may spend across its sessions; it refills like a session's
   * (default {@linkcode DEFAULT_PEER_ENTROPY_BUDGET}).
   */
  peerEntropyBudget?: number;
  /** The runtime's upgrade (default `Deno.upgradeWebSocket`). */
  upgradeWebSocket?: UpgradeWebSocket;
  /** The engine the page names (the offline template is said plainly); unnamed by default. */
  engine?: PageEngine;
}

interface Client {
  socket: WebSocket;
  role: Role;
  subscriptions: Map<string, () => void>;
  /** The peer's entropy budget, shared by every session it drives. */
  budget: EntropyBucket;
}

interface LiveSession {
  session: ChatSession;
  clients: Set<Client>;
}

const OPEN = 1;

/**
 * The WebSocket gateway: `/perturb/<agent>?session=ID` takes client frames,
 * `/observe/<agent>?session=ID` sends events, `/chat/<agent>?session=ID` does both on one
 * socket; `GET /` is the chat page. A disconnect never cancels a reply — it keeps filling
 * the session's buffer, and `resume` re-sends it from any sequence. Only `stop` cancels.
 * What a client can make it hold is capped: sockets (in all and per peer), sessions, each
 * socket's unsent bytes, and the entropy a peer spends across all its sessions.
 */
export class ChatGateway {
  #options: GatewayOptions;
  #sessions = new Map<string, Promise<LiveSession>>();
  #expired = new Set<string>();
  #sweeper: unknown;
  #clock: Clock;
  #timers: Timers;
  #slowClosed = 0;
  #sockets: ConnectionLimit;
  #budgets = new Map<string, EntropyBucket>();
  #closed = false;
  /** Compiled once, from the gateway's start; frames wait for it as for their session. */
  #parseFrame: Promise<ClientFrameParser>;

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#timers = options.timers ?? systemTimers;
    this.#sockets = new ConnectionLimit({
      total: options.maxSockets ?? DEFAULT_MAX_SOCKETS,
      perPeer: options.maxSocketsPerPeer ?? DEFAULT_MAX_SOCKETS_PER_PEER,
    });
    this.#sweeper = this.#timers.set(() => this.#sweepAndRearm(), this.#sweepEveryMs());
    this.#parseFrame = clientFrameParser();
  }

  #sweepEveryMs(): number {
    return Math.min(60_000, Math.max(250, this.#options.sessionTtlSeconds * 250));
  }

  #sweepAndRearm(): void {
    if (this.#closed) return;
    this.#sweep();
    this.#sweeper = this.#timers.set(() => this.#sweepAndRearm(), this.#sweepEveryMs());
  }

  /** Sockets closed (1013) because their reader fell more than the cap behind. */
  get slowReadersClosed(): number {
    return this.#slowClosed;
  }

  /** Open WebSockets. */
  get socketCount(): number {
    return this.#sockets.held;
  }

  /** Resolves when a reply has ended (`false` if the session or reply is unknown). */
  async replyFinished(sessionId: string, correlationId: string): Promise<boolean> {
    const live = await this.#sessions.get(sessionId);
    const reply = live?.session.reply(correlationId);
    if (!reply) return false;
    await reply.finished();
    return true;
  }

  /** The handler: the page, `/health`, and the WebSocket paths. */
  handle = (request: Request, info?: RequestInfo): Response => {
    const url = new URL(request.url);
    if (request.method === "GET" && (url.pathname === "/" || url.pathname === "/index.html")) {
      const page = this.#options.engine ? chatPageFor(this.#options.engine) : CHAT_PAGE;
      return new Response(page, {
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
    const match = /^\/(perturb|observe|chat)\/([^/]*)$/.exec(url.pathname);
    if (!match || !AGENT_NAME.test(match[2])) return new Response("Not found\n", { status: 404 });
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("This endpoint speaks WebSocket\n", { status: 426 });
    }
    const sessionId = url.searchParams.get("session") ?? "";
    if (!SESSION_ID.test(sessionId)) {
      return new Response("Give ?session=<id>: 1–64 letters, digits, '-' or '_'\n", {
        status: 400,
      });
    }
    const peer = info?.remoteAddr.hostname ?? "local";
    const release = this.#closed ? undefined : this.#sockets.acquire(peer);
    if (!release) {
      return new Response("Too many open WebSockets; try again shortly\n", {
        status: 503,
        headers: { "retry-after": "1" },
      });
    }
    return this.#upgrade(
      request,
      { role: match[1] as Role, sessionId, agent: match[2], peer },
      release,
    );
  };

  #upgrade(
    request: Request,
    target: { role: Role; sessionId: string; agent: string; peer: string },
    release: () => void,
  ): Response {
    const upgrade = this.#options.upgradeWebSocket ?? Deno.upgradeWebSocket;
    let upgraded: ReturnType<UpgradeWebSocket>;
    try {
      // K-gent API §3: a keep-alive ping every `heartbeat_interval`. Deno pings an idle socket
      // every idleTimeout / 2 s (measured) and drops a peer that has not answered by the next.
      upgraded = upgrade(request, {
        idleTimeout: Math.max(1, Math.round(2 * this.#options.config.heartbeat_interval)),
      });
    } catch (error) {
      release();
      return new Response(`${errorMessage(error)}\n`, { status: 400 });
    }
    const client: Client = {
      socket: upgraded.socket,
      role: target.role,
      subscriptions: new Map(),
      budget: this.#budgetOf(target.peer),
    };
    this.#accept(client, target.sessionId, target.agent, release);
    return upgraded.response;
  }

  /** The peer's budget: one per address, so new session ids do not buy new entropy. */
  #budgetOf(peer: string): EntropyBucket {
    let budget = this.#budgets.get(peer);
    if (!budget) {
      if (this.#budgets.size >= MAX_CLIENT_BUDGETS) this.#forgetFullBudgets();
      budget = new EntropyBucket(this.#options.peerEntropyBudget ?? DEFAULT_PEER_ENTROPY_BUDGET, {
        clock: this.#clock,
      });
      this.#budgets.set(peer, budget);
    }
    return budget;
  }

  #forgetFullBudgets(): void {
    for (const [peer, budget] of this.#budgets) {
      if (budget.available() >= budget.capacity - 1e-12) this.#budgets.delete(peer);
    }
  }

  #accept(client: Client, sessionId: string, agent: string, release: () => void): void {
    // Frames can arrive before the session is open (it may load a checkpoint): they wait
    // in order rather than being lost.
    const early: unknown[] = [];
    let live: LiveSession | undefined;
    let parse: ClientFrameParser | undefined;
    let closed = false;
    const handle = (data: unknown) => {
      if (client.role === "observe" || !live || !parse) return;
      try {
        this.#onFrame(live, client, parse(data));
      } catch (error) {
        this.#options.log?.(`chat:error ${errorMessage(error)}`);
      }
    };
    client.socket.onmessage = (event) => {
      if (live) handle(event.data);
      else if (early.length < MAX_EARLY_FRAMES) early.push(event.data);
      else client.socket.close(1008, "too many frames before the session opened");
    };
    client.socket.onclose = () => {
      closed = true;
      release();
      live?.clients.delete(client);
      for (const off of client.subscriptions.values()) off();
      client.subscriptions.clear();
    };
    client.socket.onerror = () => {};
    client.socket.onopen = async () => {
      try {
        [live, parse] = await Promise.all([this.#live(sessionId, agent), this.#parseFrame]);
      } catch (error) {
        const refusal = error instanceof SessionRefusal ? error : undefined;
        this.#sendTo(
          client,
          rejection(
            {
              code: refusal?.code ?? "SESSION_EXPIRED",
              message: errorMessage(error),
              correlationId: "",
            },
            this.#clock.now(),
          ),
        );
        client.socket.close(refusal?.closeCode ?? 1011, "session unavailable");
        return;
      }
      if (closed) return;
      live.clients.add(client);
      for (const data of early.splice(0)) handle(data);
    };
  }

  async #live(sessionId: string, agent: string): Promise<LiveSession> {
    if (this.#closed) throw new SessionRefusal("SESSION_EXPIRED", "The gateway is stopping", 1001);
    if (this.#expired.has(sessionId) && !this.#options.persistent) {
      throw new Error("This session expired; start a new one");
    }
    let live = this.#sessions.get(sessionId);
    if (!live) {
      const cap = this.#options.maxSessions ?? DEFAULT_MAX_SESSIONS;
      if (this.#sessions.size >= cap) {
        throw new SessionRefusal(
          "RATE_LIMITED",
          `The gateway holds its most sessions (${cap}); join an open one or try later`,
          1013,
        );
      }
      live = this.#options.openSession(sessionId, agent).then((session) => ({
        session,
        clients: new Set<Client>(),
      }));
      this.#sessions.set(sessionId, live);
      live.catch(() => this.#sessions.delete(sessionId));
    }
    return await live;
  }

  #onFrame(live: LiveSession, client: Client, frame: ClientFrame): void {
    if ("error" in frame) return this.#reject(live, client, frame.error, frame.correlationId ?? "");
    if (frame.action === "message") {
      const result = live.session.start(frame.message, { clientBudget: client.budget });
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
    // By index, not over a copy of the backlog; events emitted meanwhile follow in order.
    while (next < reply.events.length) {
      const event = reply.events[next];
      if (!await this.#drained(socket, cap / 2)) {
        this.#slowClosed++;
        socket.close(1013, "reader too slow; reconnect and resume");
        return undefined;
      }
      if (cancelled() || socket.readyState !== OPEN) return undefined;
      try {
        socket.send(chatEventToJson(event));
      } catch {
        return undefined;
      }
      next = event.sequence;
    }
    return next;
  }

  /**
   * Waits until the socket's unsent bytes fall to `level` (false: the reader stalled past
   * `REPLAY_STALL_MS`). The standard WebSocket has no drain event, so this looks again after
   * pauses that double from 5 ms to 100 ms, on the injected clock.
   */
  async #drained(socket: WebSocket, level: number): Promise<boolean> {
    const since = this.#clock.now();
    let pause = 5;
    while (socket.readyState === OPEN && socket.bufferedAmount > level) {
      if (this.#clock.now() - since > REPLAY_STALL_MS) return false;
      await this.#clock.sleep(pause);
      pause = Math.min(pause * 2, 100);
    }
    return true;
  }

  #reject(live: LiveSession, client: Client, refusal: Refusal, correlationId: string): void {
    const event = rejection(
      { code: refusal.code, message: refusal.message, correlationId },
      this.#clock.now(),
      refusal.retry_after_seconds,
    );
    const targets = client.role === "chat" ? [client] : this.#targets(live, client);
    for (const target of targets) this.#sendTo(target, event);
  }

  #sendTo(client: Client, event: ChatEvent): void {
    const socket = client.socket;
    if (socket.readyState !== OPEN) return;
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
    const now = this.#clock.now();
    for (const [id, pending] of this.#sessions) {
      void pending.then((live) => {
        this.#dropClosingClients(live);
        const idle = now - live.session.lastActive > this.#options.sessionTtlSeconds * 1000;
        if (idle && live.clients.size === 0 && this.#sessions.get(id) === pending) {
          this.#sessions.delete(id);
          this.#expired.add(id);
          this.#options.log?.(`chat:expired session=${id}`);
          void this.#release(live);
        }
      }, () => {});
    }
    if (this.#budgets.size > MAX_CLIENT_BUDGETS / 2) this.#forgetFullBudgets();
  }

  /**
   * Lets go of the session's sockets that are closing. A socket closed for not reading stays
   * CLOSING while its peer holds the connection — its close frame waits behind the unsent
   * bytes, and the standard WebSocket cannot drop the connection — so it would keep its
   * session from ever expiring. It still counts against the socket caps until it is gone.
   */
  #dropClosingClients(live: LiveSession): void {
    for (const client of live.clients) {
      if (client.socket.readyState === OPEN) continue;
      live.clients.delete(client);
      for (const off of client.subscriptions.values()) off();
      client.subscriptions.clear();
    }
  }

  /** Stops a session's replies and frees what it holds (sandbox, stores, checkpoint saved). */
  async #release(live: LiveSession): Promise<void> {
    try {
      await live.session.close();
    } catch (error) {
      this.#options.log?.(`chat:error closing session ${live.session.id}: ${errorMessage(error)}`);
    }
  }

  /** The ids of the sessions held in memory (open or opening). */
  sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Number of sessions held in memory. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Stops the sweeper, closes every socket and session; resolves once all are released. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#timers.clear(this.#sweeper);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    const settled = await Promise.allSettled(sessions);
    await Promise.all(settled.map(async (result) => {
      if (result.status !== "fulfilled") return;
      for (const client of result.value.clients) client.socket.close(1001, "server stopping");
      await this.#release(result.value);
    }));
  }
}

/** A session the gateway will not open: the wire code and the socket's close code. */
class SessionRefusal extends Error {
  constructor(readonly code: ChatErrorCode, message: string, readonly closeCode: number) {
    super(message);
  }
}

/** An error for a frame refused before any reply started: sequence 1, and no `done`. */
function rejection(
  refused: { code: ChatErrorCode; message: string; correlationId: string },
  now: number,
  retryAfter?: number,
): ChatEvent {
  return {
    event_type: "error",
    payload: {
      code: refused.code,
      message: refused.message,
      ...(retryAfter !== undefined ? { retry_after_seconds: retryAfter } : {}),
      correlation_id: refused.correlationId,
    },
    sequence: 1,
    timestamp: now / 1000,
  };
}
