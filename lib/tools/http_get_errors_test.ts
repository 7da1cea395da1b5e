/**
 * `http.get` names why the network failed — refused, closed early, TLS — instead of one
 * `fetch failed` for everything. Every peer is a local socket on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { ToolSession } from "./mod.ts";

/** A TCP server on 127.0.0.1 that answers every connection with `reply` bytes, then closes it. */
function rudeServer(reply: Uint8Array) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = (async () => {
    for await (const connection of listener) {
      await connection.read(new Uint8Array(1024)).catch(() => null);
      await connection.write(reply).catch(() => 0);
      connection.close();
    }
  })();
  return {
    port: listener.addr.port,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepted.catch(() => {});
    },
  };
}

/** A port nothing listens on: bound once to learn a free number, then closed. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

async function get(url: string) {
  const root = await Deno.makeTempDir({ prefix: "syn-http-errors-" });
  try {
    using session = await ToolSession.open({
      root: await Deno.realPath(root),
      granted: ["net:127.0.0.1"],
      cache: false,
    });
    const result = await session.call({ id: "h", tool: "http.get", args: { url } });
    assert.equal(result.ok, false, JSON.stringify(result));
    return result.error!;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("http.get says the connection was refused", async () => {
  const error = await get(`http://127.0.0.1:${closedPort()}/`);
  assert.equal(error.code, "io_error");
  assert.match(error.message, /^Connection refused: /);
});

Deno.test("http.get says the server closed the connection before answering", async () => {
  await using server = rudeServer(new Uint8Array());
  const error = await get(`http://127.0.0.1:${server.port}/`);
  assert.equal(error.code, "io_error");
  assert.match(error.message, /^Connection closed by the server before a complete response: /);
});

Deno.test("http.get says TLS failed when the server does not speak it", async () => {
  await using server = rudeServer(new TextEncoder().encode("HTTP/1.1 200 OK\r\n\r\nplain"));
  const error = await get(`https://127.0.0.1:${server.port}/`);
  assert.equal(error.code, "io_error");
  assert.match(error.message, /^TLS failed: /);
});
