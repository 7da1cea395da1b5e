/**
 * The chat gateway's HTTP/1.1 + WebSocket (RFC 6455) server, on `Deno.listen`.
 *
 * Why not `Deno.serve` + `Deno.upgradeWebSocket`: there a `send` only queues the frame,
 * and it is written once the thread next returns to the event loop — after every other
 * stream whose data arrived in the same turn has been handled. With 200 replies streaming
 * at once that wait is most of a chunk's latency. Here a frame is written to the socket
 * inside `send` (a TCP write is attempted when it is called), so a chunk leaves the moment
 * the gateway has it. Plain requests get one response each and the connection closes.
 */
import { createHash } from "node:crypto";
import { concatBytes } from "../core/mod.ts";

/** Request heads above this are refused (431). */
const MAX_HEAD_BYTES = 16 * 1024;
/** A request head must arrive within this, ms. */
const HEAD_TIMEOUT_MS = 10_000;
/** After sending a close frame, how long the peer has to answer before the TCP closes, ms. */
const CLOSE_TIMEOUT_MS = 3_000;
const HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A message larger than the socket's `maxMessageBytes`: its bytes were read and dropped. */
export class OversizeMessage {
  constructor(readonly bytes: number) {}
}

export interface MessageEventLike {
  data: string | Uint8Array | OversizeMessage;
}
export interface CloseEventLike {
  code: number;
  reason: string;
  wasClean: boolean;
}

export interface UpgradeOptions {
  /** Seconds between pings; a peer that has not answered the last one is dropped. 0: none. */
  idleTimeout?: number;
  /** Messages above this many bytes arrive as `OversizeMessage` (default 1 MiB). */
  maxMessageBytes?: number;
}

/** Accepts a request as a WebSocket; throws a `TypeError` when it is not a valid upgrade. */
export type Upgrade = (options?: UpgradeOptions) => { socket: ServerWebSocket; response: Response };

export type Handler = (request: Request, upgrade: Upgrade) => Response | Promise<Response>;

export interface ServeOptions {
  hostname: string;
  port: number;
  /** Aborting stops listening and closes every open socket (1001). */
  signal?: AbortSignal;
}

export interface WebSocketHttpServer {
  readonly addr: Deno.NetAddr;
  /** Resolves once the server has stopped and every connection is closed. */
  readonly finished: Promise<void>;
}

/** The value of `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key` (RFC 6455 §4.2.2). */
export function acceptKey(key: string): string {
  return createHash("sha1").update(key + HANDSHAKE_GUID).digest("base64");
}

/**
 * One server-side WebSocket, shaped like the platform's: `readyState`, `bufferedAmount`,
 * `send`, `close` and the `on*` handlers. Frames are written in order; what the kernel
 * does not take yet waits here and counts in `bufferedAmount`.
 */
export class ServerWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;

  readyState = ServerWebSocket.CONNECTING;
  onopen: (() => void) | null = null;
  onmessage: ((event: MessageEventLike) => void) | null = null;
  onclose: ((event: CloseEventLike) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  #conn: Deno.Conn | undefined;
  #queue: Uint8Array[] = [];
  #queued = 0;
  #writing = false;
  #idleSeconds: number;
  #maxMessage: number;
  #pinger: ReturnType<typeof setInterval> | undefined;
  #awaitingPong = false;
  #closeTimer: ReturnType<typeof setTimeout> | undefined;
  #closeSent = false;
  #ending = false;
  #ended = false;
  /** Called when the write queue empties (set while an ending waits to flush). */
  #drained: (() => void) | undefined;
  #finished: () => void = () => {};

  constructor(options: UpgradeOptions = {}) {
    this.#idleSeconds = options.idleTimeout ?? 0;
    this.#maxMessage = options.maxMessageBytes ?? 1024 * 1024;
  }

  /** Bytes sent but not yet taken by the kernel. */
  get bufferedAmount(): number {
    return this.#queued;
  }

  /** Sends one text message. Throws while connecting; a closing socket drops it. */
  send(data: string): void {
    if (this.readyState === ServerWebSocket.CONNECTING) {
      throw new DOMException("The WebSocket is still connecting", "InvalidStateError");
    }
    if (this.readyState !== ServerWebSocket.OPEN) return;
    this.#write(frame(0x1, encoder.encode(data)));
  }

  /** Starts the closing handshake; the TCP connection closes when the peer answers. */
  close(code = 1000, reason = ""): void {
    if (this.readyState >= ServerWebSocket.CLOSING) return;
    if (this.readyState === ServerWebSocket.CONNECTING) {
      this.readyState = ServerWebSocket.CLOSING;
      return;
    }
    this.readyState = ServerWebSocket.CLOSING;
    this.#sendClose(code, reason);
  }

  /** Runs the socket on an upgraded connection; resolves once it is closed. */
  run(conn: Deno.Conn, early: Uint8Array): Promise<void> {
    this.#conn = conn;
    const finished = new Promise<void>((resolve) => (this.#finished = resolve));
    if (this.readyState === ServerWebSocket.CLOSING) {
      this.#end(1006, "", false);
      return finished;
    }
    this.readyState = ServerWebSocket.OPEN;
    if (this.#idleSeconds > 0) {
      this.#pinger = setInterval(() => this.#ping(), this.#idleSeconds * 1000);
    }
    this.#fire(() => this.onopen?.());
    void this.#readLoop(early);
    return finished;
  }

  #ping(): void {
    if (this.#awaitingPong) return this.#end(1006, "no answer to ping", false);
    this.#awaitingPong = true;
    this.#write(frame(0x9, new Uint8Array(0)));
  }

  #sendClose(code: number, reason: string): void {
    if (this.#closeSent) return;
    this.#closeSent = true;
    const why = encoder.encode(reason).subarray(0, 123);
    const payload = new Uint8Array(2 + why.length);
    payload[0] = code >> 8;
    payload[1] = code & 0xff;
    payload.set(why, 2);
    this.#write(frame(0x8, payload));
    this.#closeTimer = setTimeout(() => this.#end(code, reason, false), CLOSE_TIMEOUT_MS);
  }

  /** Writes now when nothing is in flight; otherwise queues behind what is. */
  #write(bytes: Uint8Array): void {
    if (this.#ended) return;
    this.#queue.push(bytes);
    this.#queued += bytes.length;
    if (!this.#writing) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length && !this.#ended) {
        let chunk = this.#queue.length === 1 ? this.#queue[0] : joinBytes(this.#queue);
        this.#queue = [];
        while (chunk.length) {
          const written = await this.#conn!.write(chunk);
          this.#queued -= written;
          chunk = chunk.subarray(written);
        }
      }
    } catch {
      this.#end(1006, "", false);
    } finally {
      this.#writing = false;
      this.#drained?.();
    }
  }

  async #readLoop(early: Uint8Array): Promise<void> {
    const parser = new FrameParser(this.#maxMessage);
    const buffer = new Uint8Array(64 * 1024);
    let bytes = early;
    try {
      while (!this.#ended) {
        if (bytes.length) {
          for (const event of parser.push(bytes)) {
            this.#awaitingPong = false;
            if (!this.#onFrame(event)) return;
          }
        }
        const read = await this.#conn!.read(buffer);
        if (read === null) return this.#end(1006, "", false);
        bytes = buffer.subarray(0, read);
      }
    } catch {
      this.#end(1006, "", false);
    }
  }

  /** Handles one parsed event; false once the socket is done. */
  #onFrame(event: ParsedEvent): boolean {
    switch (event.kind) {
      case "message":
        if (this.readyState === ServerWebSocket.OPEN) {
          this.#fire(() => this.onmessage?.({ data: event.data }));
        }
        return true;
      case "ping":
        if (!this.#closeSent) this.#write(frame(0xa, event.payload));
        return true;
      case "pong":
        return true;
      case "close":
        this.#sendClose(event.code === 1005 ? 1000 : event.code, "");
        this.#end(event.code, event.reason, true, true);
        return false;
      case "fail":
        this.#sendClose(event.code, event.reason);
        this.#end(event.code, event.reason, false, true);
        return false;
    }
  }

  /**
   * Ends the socket. With `flush`, what is queued (our close frame) goes first, for at most
   * `CLOSE_TIMEOUT_MS`; otherwise (a dead or silent peer) the connection closes at once and
   * the queue is dropped, so a peer that stopped reading cannot hold it.
   */
  #end(code: number, reason: string, wasClean: boolean, flush = false): void {
    if (this.#ending) return;
    this.#ending = true;
    this.readyState = Math.max(this.readyState, ServerWebSocket.CLOSING);
    clearInterval(this.#pinger);
    clearTimeout(this.#closeTimer);
    if (!flush || !this.#writing) return this.#close(code, reason, wasClean);
    const timer = setTimeout(() => this.#close(code, reason, false), CLOSE_TIMEOUT_MS);
    this.#drained = () => {
      clearTimeout(timer);
      this.#close(code, reason, wasClean);
    };
  }

  #close(code: number, reason: string, wasClean: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#drained = undefined;
    this.#queue = [];
    this.#queued = 0;
    try {
      this.#conn?.close();
    } catch {
      // already closed
    }
    this.readyState = ServerWebSocket.CLOSED;
    this.#fire(() => this.onclose?.({ code, reason, wasClean }));
    this.#finished();
  }

  #fire(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.onerror?.(new ErrorEvent("error", { error }));
    }
  }
}

type ParsedEvent =
  | { kind: "message"; data: string | Uint8Array | OversizeMessage }
  | { kind: "ping" | "pong"; payload: Uint8Array }
  | { kind: "close" | "fail"; code: number; reason: string };

/**
 * Client frames → events (RFC 6455 §5): masked frames only, no extensions, control frames
 * short and whole, fragments reassembled, text checked as UTF-8. A message over the cap is
 * read and dropped, and reported by its size.
 */
export class FrameParser {
  #pending = new Uint8Array(0);
  #parts: Uint8Array[] = [];
  #partsBytes = 0;
  #opcode = 0;
  /** Bytes of an oversize message's current frame still to drop. */
  #skip = 0;
  #oversize = false;
  #finalSkip = false;
  #max: number;

  constructor(maxMessageBytes: number) {
    this.#max = maxMessageBytes;
  }

  push(bytes: Uint8Array): ParsedEvent[] {
    const events: ParsedEvent[] = [];
    let input = bytes;
    if (this.#skip > 0) {
      const dropped = Math.min(this.#skip, input.length);
      this.#skip -= dropped;
      this.#partsBytes += dropped;
      input = input.subarray(dropped);
      if (this.#skip === 0 && this.#finalSkip) events.push(this.#finishOversize());
    }
    let data = this.#pending.length ? joinBytes([this.#pending, input]) : input;
    while (data.length && this.#skip === 0) {
      const step = this.#frame(data, events);
      if (step === 0) break;
      if (events.at(-1)?.kind === "fail" || events.at(-1)?.kind === "close") {
        this.#pending = new Uint8Array(0);
        return events;
      }
      data = data.subarray(step);
    }
    this.#pending = this.#skip === 0 ? data.slice() : new Uint8Array(0);
    return events;
  }

  /** Parses one frame at the start of `data`; returns the bytes used (0: need more). */
  #frame(data: Uint8Array, events: ParsedEvent[]): number {
    if (data.length < 2) return 0;
    const fin = (data[0] & 0x80) !== 0;
    const opcode = data[0] & 0x0f;
    const fail = (code: number, reason: string) => (events.push({ kind: "fail", code, reason }), 1);
    if (data[0] & 0x70) return fail(1002, "reserved bits set");
    if (!(data[1] & 0x80)) return fail(1002, "client frames must be masked");
    let length = data[1] & 0x7f;
    let at = 2;
    if (length === 126) {
      if (data.length < 4) return 0;
      length = (data[2] << 8) | data[3];
      at = 4;
    } else if (length === 127) {
      if (data.length < 10) return 0;
      const wide = new DataView(data.buffer, data.byteOffset + 2, 8).getBigUint64(0);
      if (wide > BigInt(Number.MAX_SAFE_INTEGER)) return fail(1009, "frame too large");
      length = Number(wide);
      at = 10;
    }
    const control = opcode >= 0x8;
    if (control && (!fin || length > 125)) return fail(1002, "bad control frame");
    if (![0x0, 0x1, 0x2, 0x8, 0x9, 0xa].includes(opcode)) return fail(1002, "unknown opcode");
    if (opcode === 0x0 && this.#opcode === 0) return fail(1002, "continuation of nothing");
    if ((opcode === 0x1 || opcode === 0x2) && this.#opcode !== 0) {
      return fail(1002, "new message inside a fragmented one");
    }
    if (data.length < at + 4) return 0;
    const mask = data.subarray(at, at + 4);
    at += 4;
    if (!control && (this.#oversize || this.#partsBytes + length > this.#max)) {
      return this.#dropOversize(data, at, length, fin, opcode, events);
    }
    if (data.length < at + length) return 0;
    const payload = data.slice(at, at + length);
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    if (control) {
      events.push(controlEvent(opcode, payload));
      return at + length;
    }
    if (opcode !== 0x0) this.#opcode = opcode;
    this.#parts.push(payload);
    this.#partsBytes += length;
    if (fin) events.push(this.#finishMessage());
    return at + length;
  }

  #dropOversize(
    data: Uint8Array,
    at: number,
    length: number,
    fin: boolean,
    opcode: number,
    events: ParsedEvent[],
  ): number {
    if (opcode !== 0x0) this.#opcode = opcode;
    this.#oversize = true;
    this.#parts = [];
    const here = Math.min(length, data.length - at);
    this.#partsBytes += here;
    this.#skip = length - here;
    this.#finalSkip = fin;
    if (this.#skip === 0 && fin) events.push(this.#finishOversize());
    return at + here;
  }

  #finishOversize(): ParsedEvent {
    const event: ParsedEvent = { kind: "message", data: new OversizeMessage(this.#partsBytes) };
    this.#reset();
    return event;
  }

  #finishMessage(): ParsedEvent {
    const bytes = this.#parts.length === 1 ? this.#parts[0] : joinBytes(this.#parts);
    const opcode = this.#opcode;
    this.#reset();
    if (opcode === 0x2) return { kind: "message", data: bytes };
    try {
      return { kind: "message", data: strictUtf8.decode(bytes) };
    } catch {
      return { kind: "fail", code: 1007, reason: "text is not UTF-8" };
    }
  }

  #reset(): void {
    this.#parts = [];
    this.#partsBytes = 0;
    this.#opcode = 0;
    this.#oversize = false;
    this.#finalSkip = false;
  }
}

function controlEvent(opcode: number, payload: Uint8Array): ParsedEvent {
  if (opcode === 0x9) return { kind: "ping", payload };
  if (opcode === 0xa) return { kind: "pong", payload };
  if (payload.length === 1) return { kind: "fail", code: 1002, reason: "bad close frame" };
  const code = payload.length >= 2 ? (payload[0] << 8) | payload[1] : 1005;
  try {
    return { kind: "close", code, reason: strictUtf8.decode(payload.subarray(2)) };
  } catch {
    return { kind: "fail", code: 1007, reason: "close reason is not UTF-8" };
  }
}

/** One unmasked server frame. */
function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const length = payload.length;
  const head = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const out = new Uint8Array(head + length);
  out[0] = 0x80 | opcode;
  if (length < 126) out[1] = length;
  else if (length < 65536) {
    out[1] = 126;
    out[2] = length >> 8;
    out[3] = length & 0xff;
  } else {
    out[1] = 127;
    new DataView(out.buffer).setBigUint64(2, BigInt(length));
  }
  out.set(payload, head);
  return out;
}

function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  return concatBytes(parts, parts.reduce((sum, part) => sum + part.length, 0));
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const REASONS: Record<number, string> = {
  200: "OK",
  204: "No Content",
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  426: "Upgrade Required",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
};

/**
 * Listens on `hostname:port` and answers each request with `handler`; a handler that
 * calls `upgrade` and returns its `response` gets the connection as a WebSocket.
 */
export function serveWebSocketHttp(options: ServeOptions, handler: Handler): WebSocketHttpServer {
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const heads = new Set<Deno.Conn>();
  const sockets = new Set<ServerWebSocket>();
  const running = new Set<Promise<void>>();
  const stop = () => {
    try {
      listener.close();
    } catch {
      // already closed
    }
    for (const conn of heads) closeQuietly(conn);
    for (const socket of sockets) socket.close(1001, "server shutting down");
  };
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener("abort", stop, { once: true });
  const track = { heads, sockets, stopping: () => options.signal?.aborted === true };
  const finished = (async () => {
    try {
      for await (const conn of listener) {
        const task = serveConnection(conn, handler, track);
        running.add(task);
        void task.finally(() => running.delete(task));
      }
    } catch {
      // the listener was closed
    }
    while (running.size) await Promise.allSettled([...running]);
    options.signal?.removeEventListener("abort", stop);
  })();
  return { addr: listener.addr as Deno.NetAddr, finished };
}

interface Tracking {
  heads: Set<Deno.Conn>;
  sockets: Set<ServerWebSocket>;
  stopping(): boolean;
}

async function serveConnection(conn: Deno.TcpConn, handler: Handler, track: Tracking) {
  track.heads.add(conn);
  let upgraded = false;
  try {
    conn.setNoDelay(true);
    const head = await readHead(conn);
    if (!head) return;
    if ("status" in head) return await respond(conn, new Response(null, head), false);
    const parsed = parseRequest(head.text, conn.localAddr as Deno.NetAddr);
    if (!parsed) return await respond(conn, new Response("Bad request\n", { status: 400 }), false);
    const { request, http11 } = parsed;
    let pending: { socket: ServerWebSocket; response: Response } | undefined;
    const upgrade: Upgrade = (upgradeOptions) => {
      const problem = upgradeProblem(request, http11);
      if (problem) throw new TypeError(problem);
      if (pending) throw new TypeError("This request was already upgraded");
      pending = { socket: new ServerWebSocket(upgradeOptions), response: new Response(null) };
      return pending;
    };
    let response: Response;
    try {
      response = await handler(request, upgrade);
    } catch {
      response = new Response("Internal error\n", { status: 500 });
    }
    if (pending && response === pending.response && !track.stopping()) {
      const key = request.headers.get("sec-websocket-key")!;
      await writeAll(
        conn,
        encoder.encode(
          "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n" +
            `sec-websocket-accept: ${acceptKey(key)}\r\n\r\n`,
        ),
      );
      track.heads.delete(conn);
      upgraded = true;
      track.sockets.add(pending.socket);
      await pending.socket.run(conn, head.rest);
      track.sockets.delete(pending.socket);
      return;
    }
    await respond(conn, response, request.method === "HEAD");
  } catch {
    // the peer went away, or the server is stopping
  } finally {
    track.heads.delete(conn);
    if (!upgraded) closeQuietly(conn);
  }
}

/** The request head (ASCII, without its blank line) and the bytes after it. */
async function readHead(
  conn: Deno.Conn,
): Promise<{ text: string; rest: Uint8Array } | { status: number } | undefined> {
  const parts: Uint8Array[] = [];
  const buffer = new Uint8Array(4096);
  const timer = setTimeout(() => closeQuietly(conn), HEAD_TIMEOUT_MS);
  try {
    while (true) {
      const read = await conn.read(buffer);
      if (read === null) return undefined;
      parts.push(buffer.slice(0, read));
      const all = joinBytes(parts);
      const end = headEnd(all);
      if (end >= 0) {
        if (end > MAX_HEAD_BYTES) return { status: 431 };
        const text = all.subarray(0, end);
        if (
          text.some((byte) =>
            byte > 0x7e || (byte < 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a)
          )
        ) {
          return { status: 400 };
        }
        return { text: String.fromCharCode(...text), rest: all.slice(end + 4) };
      }
      if (all.length > MAX_HEAD_BYTES) return { status: 431 };
    }
  } finally {
    clearTimeout(timer);
  }
}

function headEnd(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.length; i++) {
    if (
      bytes[i] === 0x0a && bytes[i - 1] === 0x0d && bytes[i - 2] === 0x0a && bytes[i - 3] === 0x0d
    ) {
      return i - 3;
    }
  }
  return -1;
}

/** Origin-form HTTP/1.x requests only; anything else is a 400. */
function parseRequest(
  text: string,
  local: Deno.NetAddr,
): { request: Request; http11: boolean } | undefined {
  const lines = text.split("\r\n");
  const start = /^(\S+) (\/\S*) HTTP\/1\.([01])$/.exec(lines[0]);
  if (!start || !TOKEN.test(start[1])) return undefined;
  try {
    const headers = new Headers();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) return undefined;
      headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    const host = headers.get("host") ?? `${local.hostname}:${local.port}`;
    if (!/^[A-Za-z0-9.:[\]-]{1,300}$/.test(host)) return undefined;
    const url = new URL(start[2], `http://${host}`);
    return { request: new Request(url, { method: start[1], headers }), http11: start[3] === "1" };
  } catch {
    return undefined;
  }
}

/** Why a request is not a WebSocket opening handshake (RFC 6455 §4.2.1), or undefined. */
function upgradeProblem(request: Request, http11: boolean): string | undefined {
  const tokens = (name: string) =>
    (request.headers.get(name) ?? "").toLowerCase().split(",").map((one) => one.trim());
  if (request.method !== "GET" || !http11) return "A WebSocket opens with GET over HTTP/1.1";
  if (!tokens("upgrade").includes("websocket")) return "Missing 'Upgrade: websocket'";
  if (!tokens("connection").includes("upgrade")) return "Missing 'Connection: Upgrade'";
  if (request.headers.get("sec-websocket-version") !== "13") {
    return "Sec-WebSocket-Version must be 13";
  }
  if (!/^[A-Za-z0-9+/]{21}[AQgw]==$/.test(request.headers.get("sec-websocket-key") ?? "")) {
    return "Sec-WebSocket-Key must be 16 bytes in base64";
  }
  return undefined;
}

async function respond(conn: Deno.Conn, response: Response, headOnly: boolean): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  let head = `HTTP/1.1 ${response.status} ${REASONS[response.status] ?? "Status"}\r\n`;
  for (const [name, value] of response.headers) {
    if (!["content-length", "connection", "transfer-encoding"].includes(name)) {
      head += `${name}: ${value}\r\n`;
    }
  }
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  await writeAll(conn, headOnly ? encoder.encode(head) : joinBytes([encoder.encode(head), body]));
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let rest = bytes; rest.length;) rest = rest.subarray(await conn.write(rest));
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
