import assert from "node:assert/strict";
import { type Clock, loadConfig, type Timers } from "../../lib/core/mod.ts";
import { createLanguageModel, resolveModelConfig } from "../../lib/llm/mod.ts";
import {
  type ChatFluxConfig,
  ChatGateway,
  ChatSession,
  DEFAULT_CHAT_FLUX_CONFIG,
  type GatewayOptions,
  templateModel,
} from "../../lib/chat/mod.ts";
import { newServerToken, serveLocal } from "../../lib/core/mod.ts";
import { type MockLlmServer, type MockProvider, startMockLlmServer } from "./mock_llm_server.ts";

/** A chat event as the client sees it. */
export interface WireEvent {
  event_type: string;
  sequence: number;
  timestamp: number;
  payload: Record<string, unknown>;
}

/** A WebSocket client that collects events and waits for them with a deadline. */
export class TestSocket {
  readonly events: WireEvent[] = [];
  readonly socket: WebSocket;
  #waiters: (() => void)[] = [];
  /** Correlation ids whose `done` arrived: `done()` looks here, not through every event. */
  #done = new Set<string>();
  closed: Promise<void>;

  private constructor(url: string, headers?: Record<string, string>) {
    this.socket = headers ? new WebSocket(url, { headers }) : new WebSocket(url);
    this.socket.onmessage = (message) => {
      const event: WireEvent = JSON.parse(message.data);
      this.events.push(event);
      if (event.event_type === "done") this.#done.add(String(event.payload.correlation_id));
      for (const wake of this.#waiters.splice(0)) wake();
    };
    this.closed = new Promise((resolve) => (this.socket.onclose = () => resolve()));
  }

  /** Opens `url`; `headers` (a Deno extension of `WebSocket`) carry a bearer token. */
  static async open(url: string, headers?: Record<string, string>): Promise<TestSocket> {
    const client = new TestSocket(url, headers);
    await new Promise<void>((resolve, reject) => {
      client.socket.onopen = () => resolve();
      client.socket.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
    return client;
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  message(content: string, correlationId: string, extra: Record<string, unknown> = {}): void {
    this.send({
      action: "message",
      version: "1.0.0",
      data: { content, mode: "reflect", correlation_id: correlationId, ...extra },
    });
  }

  /** Events of one correlation id. */
  of(correlationId: string): WireEvent[] {
    return this.events.filter((event) => event.payload.correlation_id === correlationId);
  }

  /** Waits until `check` holds (default deadline 10 s). */
  async until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out waiting for ${what}; got ${JSON.stringify(this.events).slice(0, 600)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the `done` of a correlation id. */
  done(correlationId: string, ms?: number): Promise<void> {
    return this.until(
      () => this.#done.has(correlationId),
      `done of ${correlationId}`,
      ms,
    );
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close();
    await this.closed;
  }
}

export interface GatewayFixture {
  /** `ws://127.0.0.1:<port>` */
  url: string;
  /** `http://127.0.0.1:<port>` */
  httpUrl: string;
  port: number;
  /** The bearer token every request needs. */
  token: string;
  /** By which channel each WebSocket upgrade carried the token, in order. */
  upgradeChannels: string[];
  /** Opens a WebSocket on `path`, its token in the `token` query parameter. */
  ws(path: string): Promise<TestSocket>;
  llm: MockLlmServer;
  gateway: ChatGateway;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A gateway in this process whose sessions talk to a mock provider over its real wire. */
export async function gatewayFixture(
  options: {
    provider?: MockProvider;
    answer?: (prompt: string) => string;
    frameDelayMs?: number;
    chunkSize?: number;
    config?: Partial<ChatFluxConfig>;
    sessionTtlSeconds?: number;
    maxBufferedBytes?: number;
    fault?: string;
    /** Caps (defaults high enough for the 200-session tests). */
    limits?: Pick<
      GatewayOptions,
      "maxSessions" | "maxSockets" | "maxSocketsPerPeer" | "peerEntropyBudget"
    >;
    /** Hands out sessions; the default opens a bare one on the mock provider. */
    openSession?: GatewayOptions["openSession"];
    /** The gateway's and the default sessions' clock (default: the system's). */
    clock?: Clock;
    /** The gateway's session sweeper timer (default: the system's). */
    timers?: Timers;
    /** The default sessions' timers: chunk flushes and `stream_timeout` (default: the system's). */
    sessionTimers?: Timers;
  } = {},
): Promise<GatewayFixture> {
  const provider = options.provider ?? "openai";
  const llm = await startMockLlmServer({
    answer: (
      context,
    ) => (options.answer
      ? options.answer(context.prompt)
      : `You said: ${context.prompt}. Here is a longer answer to stream.`),
    chunkSize: options.chunkSize ?? 4,
    frameDelayMs: options.frameDelayMs ?? 0,
  });
  const endpoints = { openai: llm.openaiUrl, anthropic: llm.anthropicUrl, gemini: llm.geminiUrl };
  const endpoint = options.fault ? llm.faultUrl(provider, options.fault) : endpoints[provider];
  const env: Record<string, string> = {
    OPENAI_API_KEY: "sk-test-key-000000000000",
    ANTHROPIC_API_KEY: "sk-ant-test-00000000000000",
    GEMINI_API_KEY: "AIzaTest0000000000000000000000000000",
  };
  const model = createLanguageModel(
    resolveModelConfig(provider, {
      config: loadConfig((name) => env[name]),
      flags: { endpoint, live: true },
    }),
  );
  const config = { ...DEFAULT_CHAT_FLUX_CONFIG, ...options.config };
  const gateway = new ChatGateway({
    config,
    persistent: false,
    sessionTtlSeconds: options.sessionTtlSeconds ?? 1800,
    maxBufferedBytes: options.maxBufferedBytes,
    maxSessions: 1000,
    maxSockets: 1000,
    maxSocketsPerPeer: 1000,
    ...options.limits,
    clock: options.clock,
    timers: options.timers,
    openSession: options.openSession ??
      ((id, agent) =>
        ChatSession.open({
          id,
          agent,
          model,
          fallback: templateModel(),
          config,
          clock: options.clock,
          timers: options.sessionTimers,
        })),
  });
  const stopping = new AbortController();
  const token = newServerToken();
  const upgradeChannels: string[] = [];
  const { server, edge } = serveLocal(
    { hostname: "127.0.0.1", port: 0, signal: stopping.signal, token },
    (request, info) => {
      if (request.headers.get("upgrade")) {
        upgradeChannels.push(edge.tokenChannel(request) ?? "none");
      }
      return gateway.handle(request, info);
    },
  );
  const port = server.addr.port;
  const url = `ws://127.0.0.1:${port}`;
  const sockets: TestSocket[] = [];
  return {
    url,
    httpUrl: `http://127.0.0.1:${port}`,
    port,
    token,
    upgradeChannels,
    llm,
    gateway,
    async ws(path) {
      const socket = await TestSocket.open(
        `${url}${path}${path.includes("?") ? "&" : "?"}token=${token}`,
      );
      sockets.push(socket);
      return socket;
    },
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) await socket.close().catch(() => {});
      await gateway.close();
      stopping.abort();
      await server.finished;
      await llm.close();
    },
  };
}

/** Resolves to the promise's value, or `"timeout"` after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(resolve, ms, "timeout")));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Opens a WebSocket by hand on a raw TCP connection and waits for the 101 (5 s at most). */
export async function rawWebSocket(port: number, path: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Key: ${btoa("raw-client-key!!")}\r\n` +
      "Sec-WebSocket-Version: 13\r\n\r\n",
  ));
  const head = new Uint8Array(1024);
  const read = await within(conn.read(head), 5000);
  const status = new TextDecoder().decode(head.subarray(0, typeof read === "number" ? read : 0));
  assert.match(status, /^HTTP\/1\.1 101 /, "the upgrade was refused");
  return conn;
}
