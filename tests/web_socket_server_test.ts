/**
 * `serveWebSocketHttp`, the gateway's server, over real sockets on 127.0.0.1: the RFC 6455
 * handshake and framing (masking, lengths, fragments, control frames, UTF-8, close codes),
 * frames written inside `send`, pings, plain HTTP answers and refusals, and shutdown.
 */
import assert from "node:assert/strict";
import {
  acceptKey,
  type Handler,
  OversizeMessage,
  type ServerWebSocket,
  serveWebSocketHttp,
  type UpgradeOptions,
} from "../lib/cli/_web_socket_server.ts";

const KEY = "dGhlIHNhbXBsZSBub25jZQ==";

/** A server whose sockets are handed to `onSocket`; plain requests get `plain`. */
async function withServer(
  onSocket: (socket: ServerWebSocket) => void,
  fn: (port: number) => Promise<void>,
  options: UpgradeOptions = {},
  plain: Handler = () => new Response("plain\n", { headers: { "x-test": "1" } }),
): Promise<void> {
  const stop = new AbortController();
  const server = serveWebSocketHttp(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal },
    (request, upgrade) => {
      if (new URL(request.url).pathname !== "/ws") return plain(request, upgrade);
      try {
        const { socket, response } = upgrade(options);
        onSocket(socket);
        return response;
      } catch (error) {
        return new Response(String(error), { status: 400 });
      }
    },
  );
  try {
    await fn(server.addr.port);
  } finally {
    stop.abort();
    await server.finished;
  }
}

/** A raw TCP client: writes bytes, reads until a predicate holds or the deadline passes. */
class Raw {
  received = new Uint8Array(0);
  closed = false;
  private constructor(readonly conn: Deno.TcpConn) {
    void this.#pump();
  }
  static async open(port: number): Promise<Raw> {
    return new Raw(await Deno.connect({ hostname: "127.0.0.1", port }));
  }
  /** Opened, with the opening handshake sent. */
  static async upgraded(port: number): Promise<Raw> {
    const raw = await Raw.open(port);
    await raw.write(handshake());
    return raw;
  }
  async #pump() {
    const buffer = new Uint8Array(65536);
    try {
      while (true) {
        const read = await this.conn.read(buffer);
        if (read === null) break;
        const next = new Uint8Array(this.received.length + read);
        next.set(this.received);
        next.set(buffer.subarray(0, read), this.received.length);
        this.received = next;
      }
    } catch {
      // closed
    }
    this.closed = true;
  }
  async write(bytes: Uint8Array | string) {
    const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
    for (let rest = data; rest.length;) rest = rest.subarray(await this.conn.write(rest));
  }
  async until(check: () => boolean, ms = 5000) {
    const deadline = Date.now() + ms;
    while (!check()) {
      assert.ok(Date.now() < deadline, `timed out; got ${this.text().slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  text() {
    return new TextDecoder().decode(this.received);
  }
  /** Server frames after the 101 head: [opcode, payload]. */
  frames(): [number, Uint8Array][] {
    const bytes = this.received;
    let at = this.text().indexOf("\r\n\r\n") + 4;
    const out: [number, Uint8Array][] = [];
    while (at + 2 <= bytes.length) {
      let length = bytes[at + 1] & 0x7f;
      let start = at + 2;
      if (length === 126) [length, start] = [(bytes[at + 2] << 8) | bytes[at + 3], at + 4];
      else if (length === 127) {
        length = Number(new DataView(bytes.buffer, at + 2, 8).getBigUint64(0));
        start = at + 10;
      }
      if (start + length > bytes.length) break;
      out.push([bytes[at] & 0x0f, bytes.slice(start, start + length)]);
      at = start + length;
    }
    return out;
  }
  close() {
    try {
      this.conn.close();
    } catch {
      // already closed
    }
  }
}

function handshake(extra = ""): string {
  return `GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n` +
    `Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;
}

/** A masked client frame. */
function clientFrame(
  opcode: number,
  payload: Uint8Array | string,
  fin = true,
  mask = true,
): Uint8Array {
  const body = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const head = body.length < 126 ? 2 : body.length < 65536 ? 4 : 10;
  const out = new Uint8Array(head + (mask ? 4 : 0) + body.length);
  out[0] = (fin ? 0x80 : 0) | opcode;
  if (body.length < 126) out[1] = body.length;
  else if (body.length < 65536) {
    [out[1], out[2], out[3]] = [126, body.length >> 8, body.length & 255];
  } else {
    out[1] = 127;
    new DataView(out.buffer).setBigUint64(2, BigInt(body.length));
  }
  if (mask) out[1] |= 0x80;
  const key = [0x12, 0x34, 0x56, 0x78];
  if (mask) out.set(key, head);
  body.forEach((byte, i) => (out[head + (mask ? 4 : 0) + i] = mask ? byte ^ key[i & 3] : byte));
  return out;
}

const closeCode = (payload: Uint8Array) => (payload[0] << 8) | payload[1];

Deno.test("ws server: the accept key is RFC 6455's worked example", () => {
  assert.equal(acceptKey(KEY), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
});

Deno.test("ws server: a platform WebSocket client round-trips text of every length form", async () => {
  await withServer((socket) => {
    socket.onmessage = (event) => socket.send(`echo:${event.data}`);
  }, async (port) => {
    const client = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    const got: string[] = [];
    const texts = ["hi", "é".repeat(200), "x".repeat(100_000), "😀 end"];
    const all = new Promise<void>((resolve, reject) => {
      client.onmessage = (event) => got.push(event.data) === texts.length && resolve();
      client.onerror = () => reject(new Error("client error"));
    });
    await new Promise((resolve) => (client.onopen = resolve));
    for (const text of texts) client.send(text);
    await all;
    assert.deepEqual(got, texts.map((text) => `echo:${text}`));
    const closed = new Promise<CloseEvent>((resolve) => (client.onclose = resolve));
    client.close(1000, "bye");
    assert.equal((await closed).code, 1000);
  });
});

Deno.test("ws server: fragments are joined, a ping between them is answered, a close is echoed", async () => {
  const messages: unknown[] = [];
  const closes: number[] = [];
  await withServer((socket) => {
    socket.onmessage = (event) => messages.push(event.data);
    socket.onclose = (event) => closes.push(event.code);
  }, async (port) => {
    const raw = await Raw.upgraded(port);
    await raw.until(() => raw.text().includes("\r\n\r\n"));
    assert.match(raw.text(), /^HTTP\/1\.1 101 /);
    assert.match(raw.text(), /sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=\r\n/i);
    // One byte at a time for the first fragment: frames split across reads still parse.
    for (const byte of clientFrame(0x1, "hel", false)) await raw.write(new Uint8Array([byte]));
    await raw.write(clientFrame(0x9, "are you there"));
    await raw.write(clientFrame(0x0, "lo ", false));
    await raw.write(clientFrame(0x0, "wörld"));
    await raw.until(() => messages.length === 1 && raw.frames().length === 1);
    assert.deepEqual(messages, ["hello wörld"]);
    const [pong] = raw.frames();
    assert.equal(pong[0], 0xa);
    assert.equal(new TextDecoder().decode(pong[1]), "are you there");
    await raw.write(clientFrame(0x8, new Uint8Array([0x03, 0xe8])));
    await raw.until(() => raw.closed);
    assert.deepEqual(raw.frames().at(-1)?.[0], 0x8);
    assert.equal(closeCode(raw.frames().at(-1)![1]), 1000);
    assert.deepEqual(closes, [1000]);
    raw.close();
  });
});

for (
  const [name, frame, code] of [
    ["an unmasked frame", clientFrame(0x1, "hi", true, false), 1002],
    [
      "reserved bits",
      (() => {
        const frame = clientFrame(0x1, "hi");
        frame[0] |= 0x40;
        return frame;
      })(),
      1002,
    ],
    ["an unknown opcode", clientFrame(0x3, "hi"), 1002],
    ["a fragmented ping", clientFrame(0x9, "hi", false), 1002],
    ["a continuation of nothing", clientFrame(0x0, "hi"), 1002],
    ["text that is not UTF-8", clientFrame(0x1, new Uint8Array([0x68, 0xff, 0xfe])), 1007],
  ] as const
) {
  Deno.test(`ws server: ${name} fails the connection with ${code}`, async () => {
    const messages: unknown[] = [];
    await withServer((socket) => {
      socket.onmessage = (event) => messages.push(event.data);
    }, async (port) => {
      const raw = await Raw.upgraded(port);
      await raw.write(frame);
      await raw.until(() => raw.frames().some(([opcode]) => opcode === 0x8));
      const close = raw.frames().find(([opcode]) => opcode === 0x8)!;
      assert.equal(closeCode(close[1]), code);
      await raw.until(() => raw.closed);
      assert.deepEqual(messages, []);
      raw.close();
    });
  });
}

Deno.test("ws server: a message over the cap is dropped as it streams and reported by size; the socket stays open", async () => {
  const messages: unknown[] = [];
  await withServer((socket) => {
    socket.onmessage = (event) => messages.push(event.data);
  }, async (port) => {
    const raw = await Raw.upgraded(port);
    await raw.write(clientFrame(0x1, "a".repeat(600), false));
    await raw.write(clientFrame(0x0, "b".repeat(70_000)));
    await raw.write(clientFrame(0x1, "after"));
    await raw.until(() => messages.length === 2);
    assert.ok(messages[0] instanceof OversizeMessage);
    assert.equal((messages[0] as OversizeMessage).bytes, 70_600);
    assert.equal(messages[1], "after");
    assert.ok(!raw.closed);
    raw.close();
  }, { maxMessageBytes: 1024 });
});

Deno.test("ws server: a frame leaves inside send(), not when the thread next waits", async () => {
  const worker = new Worker(
    `data:application/javascript,${
      encodeURIComponent(`
      self.onmessage = (event) => {
        const socket = new WebSocket("ws://127.0.0.1:" + event.data + "/ws");
        const times = {};
        socket.onmessage = (message) => {
          times[message.data] = performance.timeOrigin + performance.now();
          if (message.data === "B") { socket.close(); self.postMessage(times); }
        };
      };`)
    }`,
    { type: "module" },
  );
  try {
    let arrived: Record<string, number> = {};
    let sentA = 0;
    await withServer((socket) => {
      socket.onopen = () => {
        sentA = performance.timeOrigin + performance.now();
        socket.send("A");
        const start = performance.now();
        while (performance.now() - start < 300) {
          // busy: this thread does not return to its event loop
        }
        socket.send("B");
      };
    }, async (port) => {
      arrived = await new Promise((resolve) => {
        worker.onmessage = (event) => resolve(event.data);
        worker.postMessage(port);
      });
    });
    assert.ok(arrived.A - sentA < 200, `A arrived ${arrived.A - sentA} ms after send`);
    assert.ok(arrived.B - arrived.A >= 200, `A came only ${arrived.B - arrived.A} ms before B`);
  } finally {
    worker.terminate();
  }
});

Deno.test("ws server: a peer that answers no ping is dropped; one that answers stays", async () => {
  const closes: number[] = [];
  await withServer((socket) => {
    socket.onclose = (event) => closes.push(event.code);
  }, async (port) => {
    const silent = await Raw.upgraded(port);
    const client = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    await new Promise((resolve) => (client.onopen = resolve));
    await silent.until(() => silent.closed, 6000);
    assert.ok(silent.frames().some(([opcode]) => opcode === 0x9), "it was pinged");
    assert.equal(client.readyState, WebSocket.OPEN, "the answering client is still open");
    const closed = new Promise((resolve) => (client.onclose = resolve));
    client.close();
    await closed;
    silent.close();
    assert.ok(closes.includes(1006));
  }, { idleTimeout: 1 });
});

Deno.test("ws server: a peer that stopped reading is closed when its close is not answered, its backlog dropped", async () => {
  let socket: ServerWebSocket | undefined;
  const closed = Promise.withResolvers<number>();
  await withServer((opened) => {
    socket = opened;
    opened.onopen = () => {
      // More than loopback's buffers take: the writes stall with most of this queued here.
      for (let i = 0; i < 24; i++) opened.send("x".repeat(1024 * 1024));
      opened.close(1013, "reader too slow");
    };
    opened.onclose = () => closed.resolve(performance.now());
  }, async (port) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(new TextEncoder().encode(handshake()));
    const start = performance.now();
    const timeout = setTimeout(() => closed.reject(new Error("still open after 8 s")), 8000);
    const at = await closed.promise;
    clearTimeout(timeout);
    assert.ok(at - start < 6000, `closed after ${at - start} ms`);
    assert.equal(socket?.readyState, 3);
    assert.equal(socket?.bufferedAmount, 0, "the backlog is dropped");
    conn.close();
  });
});

Deno.test("ws server: plain requests get one answer and the connection closes; bad ones are refused", async () => {
  await withServer(() => {}, async (port) => {
    const cases: [string, RegExp][] = [
      [
        "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        /^HTTP\/1\.1 200 OK\r\n[^]*x-test: 1\r\n[^]*content-length: 6\r\nconnection: close\r\n\r\nplain\n$/,
      ],
      [
        "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n",
        /^HTTP\/1\.1 200 OK\r\n[^]*content-length: 6\r\nconnection: close\r\n\r\n$/,
      ],
      ["NOT A REQUEST\r\n\r\n", /^HTTP\/1\.1 400 /],
      ["GET / HTTP/1.1\r\nbad header line\r\n\r\n", /^HTTP\/1\.1 400 /],
      ["GET / HTTP/1.1\r\nHost: \x7f\r\n\r\n", /^HTTP\/1\.1 400 /],
      [`GET / HTTP/1.1\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, /^HTTP\/1\.1 431 /],
      [
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
        /^HTTP\/1\.1 400 [^]*Sec-WebSocket-Version must be 13/,
      ],
      [handshake().replace("13", "8"), /^HTTP\/1\.1 400 /],
      [handshake().replace(KEY, "short"), /^HTTP\/1\.1 400 [^]*Sec-WebSocket-Key/],
      [handshake().replace("GET", "POST"), /^HTTP\/1\.1 400 /],
    ];
    for (const [request, expected] of cases) {
      const raw = await Raw.open(port);
      await raw.write(request);
      await raw.until(() => raw.closed);
      assert.match(raw.text(), expected, JSON.stringify(request.slice(0, 60)));
      raw.close();
    }
  });
  await withServer(
    () => {},
    async (port) => {
      const raw = await Raw.open(port);
      await raw.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      await raw.until(() => raw.closed);
      assert.match(raw.text(), /^HTTP\/1\.1 500 /, "a handler that throws is a 500");
      raw.close();
    },
    {},
    () => {
      throw new Error("boom");
    },
  );
});

Deno.test("ws server: stopping closes open sockets with 1001 and finishes", async () => {
  const stop = new AbortController();
  const server = serveWebSocketHttp(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal },
    (_, upgrade) => upgrade().response,
  );
  const client = new WebSocket(`ws://127.0.0.1:${server.addr.port}/`);
  await new Promise((resolve) => (client.onopen = resolve));
  const closed = new Promise<CloseEvent>((resolve) => (client.onclose = resolve));
  stop.abort();
  assert.equal((await closed).code, 1001);
  await server.finished;
});
