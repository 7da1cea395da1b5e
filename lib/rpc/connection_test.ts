import assert from "node:assert/strict";
import { ListenerServer } from "./connection.ts";
import { resultResponse } from "./messages.ts";
import type { RpcHandler } from "./dispatch_line.ts";

const encoder = new TextEncoder();

function handler(delayMs = 0): RpcHandler {
  return {
    async handle(request) {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
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
  const server = new ListenerServer(listener, () => handler(100));
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
  try {
    await conn.write(encoder.encode('{"jsonrpc":"2.0","id":"slow","method":"m"}\n'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const stopped = server.shutdown();
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
    // Without the grace period this shutdown never returns; the guard turns a hang into a failure.
    let guard: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      server.shutdown().then(() => "stopped"),
      new Promise((resolve) => (guard = setTimeout(() => resolve("still waiting"), 5_000))),
    ]);
    clearTimeout(guard);
    assert.equal(outcome, "stopped");
  } finally {
    conn.close();
  }
});
