import assert from "node:assert/strict";
import { ListenerServer, settlesWithin } from "./connection.ts";
import { resultResponse } from "./messages.ts";
import type { RpcHandler } from "./dispatch_line.ts";

const encoder = new TextEncoder();

function handler(): RpcHandler {
  return {
    handle(request) {
      // Big replies fill the socket buffers of a peer that does not read.
      return request.method === "big" ? { text: "b".repeat(256 * 1024) } : { ok: true };
    },
    oversize: (id) => resultResponse(id, { ok: false }),
  };
}

async function readLine(conn: Deno.Conn): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const buffer = new Uint8Array(4096);
  while (!text.includes("\n")) {
    const read = await conn.read(buffer);
    if (read === null) break;
    text += decoder.decode(buffer.subarray(0, read), { stream: true });
  }
  return text;
}

Deno.test("ListenerServer.shutdown() answers the in-flight request before closing", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  // The request is held in the handler until shutdown has begun.
  const arrived = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const server = new ListenerServer(listener, () => ({
    async handle() {
      arrived.resolve();
      await release.promise;
      return { ok: true };
    },
    oversize: (id) => resultResponse(id, { ok: false }),
  }));
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
  try {
    await conn.write(encoder.encode('{"jsonrpc":"2.0","id":"slow","method":"m"}\n'));
    await arrived.promise;
    const stopped = server.shutdown();
    release.resolve();
    assert.deepEqual(JSON.parse(await readLine(conn)), {
      jsonrpc: "2.0",
      id: "slow",
      result: { ok: true },
    });
    await stopped;
    assert.equal(await conn.read(new Uint8Array(16)), null, "then the connection is closed");
  } finally {
    conn.close();
  }
});

Deno.test("ListenerServer.shutdown() is not held up by a peer that stopped reading", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const server = new ListenerServer(listener, handler, { shutdownGraceMs: 100 });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
  try {
    // About 50 MiB of replies that are never read: the server's writes stall.
    const requests = '{"jsonrpc":"2.0","id":1,"method":"big"}\n'.repeat(200);
    await conn.write(encoder.encode(requests));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Without the grace period this shutdown never returns; the limit turns a hang into a failure.
    const stopping = server.shutdown();
    assert.ok(await settlesWithin(stopping, 5_000), "shutdown is still waiting");
    await stopping;
  } finally {
    conn.close();
  }
});

/** A real listener whose first `accept()` fails the way a full file table makes it fail. */
function flakyListener(listener: Deno.TcpListener): Deno.Listener {
  let failures = 1;
  return {
    get addr() {
      return listener.addr;
    },
    accept() {
      if (failures-- > 0) return Promise.reject(new Error("Too many open files (os error 24)"));
      return listener.accept();
    },
    close: () => listener.close(),
  } as unknown as Deno.Listener;
}

Deno.test("ListenerServer keeps accepting after accept() fails (EMFILE)", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const server = new ListenerServer(flakyListener(listener), () => handler());
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
  try {
    await conn.write(encoder.encode('{"jsonrpc":"2.0","id":1,"method":"m"}\n'));
    const reply = readLine(conn);
    assert.ok(await settlesWithin(reply, 5_000), "no reply");
    assert.deepEqual(JSON.parse(await reply), { jsonrpc: "2.0", id: 1, result: { ok: true } });
  } finally {
    conn.close();
    await server.shutdown();
  }
});

Deno.test("ListenerServer closes connections over maxConnections at once", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const logs: string[] = [];
  const server = new ListenerServer(listener, () => handler(), {
    maxConnections: 2,
    log: (line) => logs.push(line),
  });
  const port = listener.addr.port;
  const ask = async (conn: Deno.Conn, id: number) => {
    await conn.write(encoder.encode(`{"jsonrpc":"2.0","id":${id},"method":"m"}\n`));
    return await readLine(conn);
  };
  const first = await Deno.connect({ hostname: "127.0.0.1", port });
  const second = await Deno.connect({ hostname: "127.0.0.1", port });
  const opened = [first, second];
  try {
    assert.match(await ask(first, 1), /"id":1/);
    assert.match(await ask(second, 2), /"id":2/);
    const third = await Deno.connect({ hostname: "127.0.0.1", port });
    opened.push(third);
    assert.equal(await ask(third, 3).catch(() => ""), "", "the surplus connection is closed");
    assert.ok(logs.some((line) => line.includes("too_many_connections")), logs.join("\n"));
    first.close();
    opened.shift();
    // A slot frees up once the server sees the close.
    let reply = "";
    for (let attempt = 0; attempt < 50 && reply === ""; attempt++) {
      const next = await Deno.connect({ hostname: "127.0.0.1", port });
      opened.push(next);
      reply = await ask(next, 4).catch(() => "");
      if (reply === "") await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(reply, /"id":4/);
  } finally {
    for (const conn of opened) {
      try {
        conn.close();
      } catch {
        // closed already
      }
    }
    await server.shutdown();
  }
});

Deno.test("settlesWithin: true for a promise already settled either way, false when time runs out", async () => {
  assert.equal(await settlesWithin(Promise.resolve(1), 60_000), true);
  const rejected = Promise.reject(new Error("gone"));
  rejected.catch(() => {});
  assert.equal(await settlesWithin(rejected, 60_000), true);
  let resolveLater!: () => void;
  const later = new Promise<void>((resolve) => (resolveLater = resolve));
  const waiting = settlesWithin(later, 60_000);
  resolveLater();
  assert.equal(await waiting, true);
  assert.equal(await settlesWithin(new Promise(() => {}), 5), false);
});
