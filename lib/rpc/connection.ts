import { dispatchLine, type RpcHandler } from "./dispatch_line.ts";
import { readNdjsonLines } from "./ndjson.ts";
import { type ByteSource, startTimer, writeAll } from "../core/mod.ts";

/** One bidirectional byte channel carrying NDJSON frames (a socket, stdio, a memory pipe). */
export interface RpcConnection {
  /** The bytes the peer sends: a stream, or a source read without one (stdin). */
  readonly readable: ReadableStream<Uint8Array> | ByteSource;
  /** Writes text (UTF-8) or raw bytes in full; rejects once the peer is gone. */
  write(data: string | Uint8Array): Promise<void>;
  /** Closes the channel; idempotent. */
  close(): void;
}

const encoder = new TextEncoder();

/** An `RpcConnection` over a `Deno.Conn` (TCP or Unix socket). */
export function connectionFromConn(conn: Deno.Conn): RpcConnection {
  let closed = false;
  return {
    readable: conn.readable,
    write: (data) => writeAll(conn, data),
    close() {
      if (closed) return;
      closed = true;
      try {
        conn.close();
      } catch {
        // already closed by the peer or by a cancelled stream
      }
    },
  };
}

/**
 * Serves one connection: reads NDJSON lines, answers each request before reading the
 * next (MCP spec §3: sequential, responses in request order), and returns when the
 * peer closes, the connection fails, or `signal` aborts — an abort lets the request
 * in progress finish and its response be written first.
 */
export async function serveConnection(
  connection: RpcConnection,
  handler: RpcHandler,
  options: { signal?: AbortSignal; maxLineBytes?: number; idleMs?: number } = {},
): Promise<void> {
  // Reading stops at once when idle; while a request is in flight, only after its reply
  // is written (cancelling a socket's stream would close it under the pending reply).
  const stopReading = new AbortController();
  let busy = false;
  // Replies and unsolicited frames share the connection: writes are queued, never interleaved.
  let writing: Promise<void> = Promise.resolve();
  const write = (text: string): Promise<void> => {
    const next = writing.then(() => connection.write(text));
    writing = next.catch(() => {});
    return next;
  };
  handler.attach?.((message) => write(JSON.stringify(message) + "\n"));
  const onAbort = () => {
    if (!busy) stopReading.abort();
  };
  // A peer that sends nothing for `idleMs` gives its slot back (it can reconnect).
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const armIdle = () => {
    if (options.idleMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (busy) return armIdle();
      handler.log?.(`rpc:idle_close after_ms=${options.idleMs}`);
      stopReading.abort();
    }, options.idleMs);
  };
  armIdle();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (options.signal?.aborted) return;
    const lines = readNdjsonLines(connection.readable, {
      maxLineBytes: options.maxLineBytes,
      signal: stopReading.signal,
    });
    for await (const line of lines) {
      busy = true;
      armIdle();
      // Nothing a peer sends may end the connection: a failure here answers -32603.
      const reply = await dispatchLine(line, handler).catch((error) => {
        handler.log?.(`rpc:dispatch_error detail=${JSON.stringify(String(error))}`);
        return '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}\n';
      });
      if (reply !== undefined) await write(reply);
      busy = false;
      if (options.signal?.aborted) break;
    }
  } catch (error) {
    if (!options.signal?.aborted) {
      handler.log?.(`rpc:connection_error detail=${JSON.stringify(String(error))}`);
    }
  } finally {
    // Only when armed: even naming `clearTimeout` loads Deno 2.9's Node timers.
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    options.signal?.removeEventListener("abort", onAbort);
    await handler.close?.();
    await writing;
  }
}

/** How long a shutdown waits for in-flight replies before it closes connections anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Connections served at once by default. Each may hold up to one line (1 MiB) in memory;
 * connections past the limit are closed as soon as they are accepted.
 */
export const MAX_CONNECTIONS = 256;

/** Connections one TCP peer (one address) may hold at once, so no single peer can take every slot. */
export const MAX_CONNECTIONS_PER_PEER = 64;

/** A connection that sends nothing for this long is closed (2 minutes). */
export const IDLE_TIMEOUT_MS = 120_000;

/** The pause after a failed `accept()` (e.g. out of file descriptors) before trying again. */
const ACCEPT_RETRY_MS = 100;

/**
 * Accepts connections on a listener and serves each with its own handler, all at once
 * (each connection keeps its own request order). `shutdown()` stops accepting, lets
 * every in-flight request finish and its response be written, then closes everything.
 * A peer that stops reading cannot hold a shutdown for longer than `shutdownGraceMs`
 * (default 10 s, longer than any request takes): then its connection is closed unanswered.
 * At most `maxConnections` (default 256) are served at once, at most `maxPerPeer` (64)
 * from one TCP address; one more is closed at once. A connection idle for
 * `idleTimeoutMs` (2 min) is closed, so idle clients cannot lock everyone out.
 * A failed `accept()` (out of file descriptors) is retried shortly, never fatal.
 */
export class ListenerServer {
  readonly #listener: Deno.Listener;
  readonly #createHandler: () => RpcHandler;
  readonly #abort = new AbortController();
  readonly #sessions = new Set<Promise<void>>();
  readonly #connections = new Set<RpcConnection>();
  readonly #accepting: Promise<void>;
  readonly #maxLineBytes: number | undefined;
  readonly #shutdownGraceMs: number;
  readonly #maxConnections: number;
  readonly #maxPerPeer: number;
  readonly #idleTimeoutMs: number;
  readonly #perPeer = new Map<string, number>();
  readonly #log: (line: string) => void;

  constructor(
    listener: Deno.Listener,
    createHandler: () => RpcHandler,
    options: {
      maxLineBytes?: number;
      shutdownGraceMs?: number;
      maxConnections?: number;
      maxPerPeer?: number;
      idleTimeoutMs?: number;
      /** Receives diagnostics (refused connections, accept failures). */
      log?: (line: string) => void;
    } = {},
  ) {
    this.#listener = listener;
    this.#createHandler = createHandler;
    this.#maxLineBytes = options.maxLineBytes;
    this.#shutdownGraceMs = options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
    this.#maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
    this.#maxPerPeer = options.maxPerPeer ?? MAX_CONNECTIONS_PER_PEER;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    this.#log = options.log ?? (() => {});
    this.#accepting = this.#accept();
  }

  /** The bound address (the real port when listening on port 0). */
  get addr(): Deno.Addr {
    return this.#listener.addr;
  }

  async #accept(): Promise<void> {
    while (!this.#abort.signal.aborted) {
      let conn: Deno.Conn;
      try {
        conn = await this.#listener.accept();
      } catch (error) {
        if (this.#abort.signal.aborted || error instanceof Deno.errors.BadResource) return;
        // Out of file descriptors, or a peer gone before its accept: not the end of serving.
        this.#log(`rpc:accept_error detail=${JSON.stringify(String(error))}`);
        await pause(ACCEPT_RETRY_MS, this.#abort.signal);
        continue;
      }
      if (this.#abort.signal.aborted) {
        conn.close();
        return;
      }
      if (this.#connections.size >= this.#maxConnections) {
        this.#log(`rpc:reject reason=too_many_connections limit=${this.#maxConnections}`);
        try {
          conn.close();
        } catch {
          // already gone
        }
        continue;
      }
      const peer = conn.remoteAddr.transport === "tcp" ? conn.remoteAddr.hostname : undefined;
      if (peer !== undefined && (this.#perPeer.get(peer) ?? 0) >= this.#maxPerPeer) {
        this.#log(`rpc:reject reason=too_many_connections_from_peer limit=${this.#maxPerPeer}`);
        try {
          conn.close();
        } catch {
          // already gone
        }
        continue;
      }
      if (conn.remoteAddr.transport === "tcp") {
        // Small request/response frames: Nagle's algorithm would add 40 ms per round trip.
        (conn as Deno.TcpConn).setNoDelay(true);
      }
      if (peer !== undefined) this.#perPeer.set(peer, (this.#perPeer.get(peer) ?? 0) + 1);
      const connection = connectionFromConn(conn);
      this.#connections.add(connection);
      const session = serveConnection(connection, this.#createHandler(), {
        signal: this.#abort.signal,
        maxLineBytes: this.#maxLineBytes,
        idleMs: this.#idleTimeoutMs,
      }).finally(() => {
        connection.close();
        this.#connections.delete(connection);
        this.#sessions.delete(session);
        if (peer !== undefined) {
          const left = (this.#perPeer.get(peer) ?? 1) - 1;
          if (left > 0) this.#perPeer.set(peer, left);
          else this.#perPeer.delete(peer);
        }
      });
      this.#sessions.add(session);
    }
  }

  /** Resolves when every connection has ended (after `shutdown()`). */
  async shutdown(): Promise<void> {
    if (!this.#abort.signal.aborted) {
      this.#abort.abort();
      try {
        this.#listener.close();
      } catch {
        // already closed
      }
    }
    await this.#accepting;
    const sessions = Promise.all([...this.#sessions]);
    if (!await settlesWithin(sessions, this.#shutdownGraceMs)) {
      // Replies still unwritten now wait on peers that stopped reading.
      for (const connection of this.#connections) connection.close();
      await sessions;
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      cancel();
      signal.removeEventListener("abort", done);
      resolve();
    };
    const cancel = startTimer(ms, done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** True when `promise` settles within `ms`; false when the time runs out first. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  // A promise that has already settled (a stdio server after end of input) needs no timer.
  let settled = false;
  const mark = () => (settled = true);
  promise.then(mark, mark);
  await null;
  if (settled) return true;
  let cancel = () => {};
  const expired = new Promise<false>((resolve) => (cancel = startTimer(ms, () => resolve(false))));
  try {
    return await Promise.race([promise.then(() => true, () => true), expired]);
  } finally {
    cancel();
  }
}

/**
 * Two linked in-memory connections: what one writes, the other reads. The standard
 * fake for in-process client/server tests.
 */
export function createMemoryConnectionPair(): [RpcConnection, RpcConnection] {
  const left = memoryPipe();
  const right = memoryPipe();
  const end = (readSide: MemoryPipe, writeSide: MemoryPipe): RpcConnection => {
    let closed = false;
    return {
      readable: readSide.readable,
      write(data) {
        if (closed || writeSide.closed) return Promise.reject(new Error("Connection closed"));
        writeSide.push(typeof data === "string" ? encoder.encode(data) : data.slice());
        return Promise.resolve();
      },
      close() {
        if (closed) return;
        closed = true;
        writeSide.end();
        readSide.end();
      },
    };
  };
  return [end(left, right), end(right, left)];
}

interface MemoryPipe {
  readable: ReadableStream<Uint8Array>;
  closed: boolean;
  push(bytes: Uint8Array): void;
  end(): void;
}

function memoryPipe(): MemoryPipe {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const pipe: MemoryPipe = {
    readable: new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      cancel() {
        pipe.closed = true;
      },
    }),
    closed: false,
    push(bytes) {
      if (!pipe.closed) controller.enqueue(bytes);
    },
    end() {
      if (pipe.closed) return;
      pipe.closed = true;
      controller.close();
    },
  };
  return pipe;
}
