import assert from "node:assert/strict";
import { ListenerServer } from "./connection.ts";
import type { RpcHandler } from "./dispatch_line.ts";
import { waitUntil } from "../../tests/fakes/wait_until.ts";
import { dispatchLine } from "./dispatch_line.ts";

const handler = (): RpcHandler => ({
  handle: (request) => ({ echo: request.method }),
  oversize: (id) => ({ jsonrpc: "2.0", id, error: { code: -32600, message: "too big" } }),
});

async function ask(port: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
  const buffer = new Uint8Array(1024);
  const count = await conn.read(buffer);
  conn.close();
  return count === null ? "" : new TextDecoder().decode(buffer.subarray(0, count));
}

async function closedByServer(conn: Deno.Conn): Promise<boolean> {
  const count = await conn.read(new Uint8Array(16)).catch(() => null);
  return count === null;
}

Deno.test("idle connections are closed, so idle clients cannot lock everyone out", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const server = new ListenerServer(listener, handler, {
    maxConnections: 3,
    idleTimeoutMs: 200,
    log: () => {},
  });
  const idle = await Promise.all(
    [0, 1, 2].map(() => Deno.connect({ hostname: "127.0.0.1", port })),
  );
  for (const conn of idle) {
    assert.equal(await closedByServer(conn), true, "an idle client kept its slot");
  }
  for (const conn of idle) conn.close();
  assert.match(await ask(port), /"echo":"ping"/);
  await server.shutdown();
});

Deno.test("one peer cannot hold more than maxPerPeer connections", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const lines: string[] = [];
  const server = new ListenerServer(listener, handler, {
    maxPerPeer: 2,
    log: (line) => void lines.push(line),
  });
  const held = [
    await Deno.connect({ hostname: "127.0.0.1", port }),
    await Deno.connect({ hostname: "127.0.0.1", port }),
  ];
  const third = await Deno.connect({ hostname: "127.0.0.1", port });
  assert.equal(await closedByServer(third), true);
  assert.ok(lines.some((line) => line.includes("too_many_connections_from_peer")));
  third.close();
  for (const conn of held) conn.close();
  // The server sees the closes when it next reads: until then a new connection is refused.
  await waitUntil(
    async () => /"echo":"ping"/.test(await ask(port).catch(() => "")),
    "the slots to be given back",
  );
  await server.shutdown();
});

Deno.test("a line nested 100,000 deep with an odd id is answered, never a stack overflow", async () => {
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  const reply = await dispatchLine(
    {
      kind: "line",
      text: `{"jsonrpc":"2.0","id":-0.0,"method":"x","params":{"name":${deep}}}`,
    } as never,
    handler(),
  );
  assert.equal(reply, '{"jsonrpc":"2.0","id":-0.0,"result":{"echo":"x"}}\n');
});
