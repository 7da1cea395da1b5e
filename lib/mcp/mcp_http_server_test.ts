import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { McpHttpEndpoint, startMcpHttpServer } from "./mcp_http_server.ts";

/** A tool set other than the validator's: the server takes any factory. */
function echoServer(): McpServer {
  const server = new McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes" }, () => ({
    content: [{ type: "text" as const, text: "echo" }],
  }));
  return server;
}

async function connect(url: string, token: string, options: { modern?: boolean } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: "test", version: "1.0.0" },
    options.modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(transport);
  return { client, transport };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
});

function initialize(url: string, token: string, body = ""): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: body || INITIALIZE,
  });
}

Deno.test("startMcpHttpServer() refuses sessions past the cap with 503, and takes one again after a DELETE", async () => {
  const lines: string[] = [];
  const server = startMcpHttpServer(echoServer, {
    hostname: "127.0.0.1",
    port: 0,
    token: "t0ken-t0ken-t0ken",
    maxSessions: 2,
    log: (line) => lines.push(line),
  });
  const first = await connect(server.url, "t0ken-t0ken-t0ken");
  const second = await connect(server.url, "t0ken-t0ken-t0ken");
  try {
    assert.equal(server.sessionCount, 2);
    const refused = await initialize(server.url, "t0ken-t0ken-t0ken");
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "30");
    const body = await refused.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.match(body.error.message, /2 MCP sessions are open, the most it keeps/);
    assert.ok(lines.includes("mcp:reject reason=too_many_sessions limit=2"));
    // The sessions already open keep working.
    const echoed = await first.client.callTool({ name: "echo", arguments: {} });
    assert.deepEqual(echoed.content, [{ type: "text", text: "echo" }]);
    await first.transport.terminateSession();
    assert.equal(server.sessionCount, 1);
    const third = await connect(server.url, "t0ken-t0ken-t0ken");
    assert.equal(server.sessionCount, 2);
    await third.client.close();
  } finally {
    await first.client.close();
    await second.client.close();
    await server.shutdown();
  }
});

Deno.test("startMcpHttpServer() answers 413 to a body over the cap and 404 off /mcp", async () => {
  const server = startMcpHttpServer(echoServer, {
    hostname: "127.0.0.1",
    port: 0,
    token: "t0ken-t0ken-t0ken",
    maxBodyBytes: 1024,
  });
  try {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: {} }) +
      " ".repeat(2048);
    const tooLarge = await initialize(server.url, "t0ken-t0ken-t0ken", big);
    assert.equal(tooLarge.status, 413);
    await tooLarge.body?.cancel();
    assert.equal(server.sessionCount, 0);
    const elsewhere = await fetch(new URL("/other", server.url), {
      headers: { authorization: "Bearer t0ken-t0ken-t0ken" },
    });
    assert.equal(elsewhere.status, 404);
    await elsewhere.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("startMcpHttpServer() shutdown closes every session and ends its open SSE stream", async () => {
  const server = startMcpHttpServer(echoServer, {
    hostname: "127.0.0.1",
    port: 0,
    token: "t0ken-t0ken-t0ken",
  });
  const opened = await initialize(server.url, "t0ken-t0ken-t0ken");
  await opened.body?.cancel();
  // The standalone GET stream a session may hold open for server-sent messages.
  const stream = await fetch(server.url, {
    headers: {
      authorization: "Bearer t0ken-t0ken-t0ken",
      accept: "text/event-stream",
      "mcp-session-id": opened.headers.get("mcp-session-id")!,
      "mcp-protocol-version": "2025-06-18",
    },
  });
  assert.equal(stream.status, 200);
  const ended = stream.body!.pipeTo(new WritableStream()).then(() => "ended", () => "ended");
  assert.equal(server.sessionCount, 1);
  await server.shutdown();
  assert.equal(server.sessionCount, 0);
  assert.equal(await ended, "ended");
  await server.finished;
});

Deno.test("McpHttpEndpoint.expireIdle() closes only sessions idle past the limit", async () => {
  const clock = new FakeClock(1_000);
  const endpoint = new McpHttpEndpoint(echoServer, { sessionIdleMs: 60_000, clock });
  const post = (body: unknown, sessionId?: string) =>
    endpoint.handle(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(sessionId
            ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" }
            : {}),
        },
        body: JSON.stringify(body),
      }),
      Promise.resolve(),
    );
  const opened = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  const id = opened.headers.get("mcp-session-id")!;
  await opened.body?.cancel();
  assert.equal(endpoint.sessionCount, 1);
  clock.current += 59_000;
  assert.equal(await endpoint.expireIdle(), 0);
  const ping = await post({ jsonrpc: "2.0", id: 2, method: "ping" }, id);
  assert.equal(ping.status, 200);
  await ping.body?.cancel();
  clock.current += 59_000; // a request renewed the session
  assert.equal(await endpoint.expireIdle(), 0);
  clock.current += 2_000;
  assert.equal(await endpoint.expireIdle(), 1);
  assert.equal(endpoint.sessionCount, 0);
  const gone = await post({ jsonrpc: "2.0", id: 3, method: "ping" }, id);
  assert.equal(gone.status, 404);
  await gone.body?.cancel();
  await endpoint.close();
});

Deno.test("McpHttpEndpoint.expireIdle() closes a session idle past the limit and ends its open stream", async () => {
  const clock = new FakeClock(1_000);
  const endpoint = new McpHttpEndpoint(echoServer, { sessionIdleMs: 60_000, clock });
  const opened = await endpoint.handle(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: INITIALIZE,
    }),
    Promise.resolve(),
  );
  const id = opened.headers.get("mcp-session-id")!;
  await opened.body?.cancel();
  // The stream stays open: its `completed` never settles while the client holds it.
  const stream = await endpoint.handle(
    new Request("http://127.0.0.1/mcp", {
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-06-18",
      },
    }),
    new Promise(() => {}),
  );
  assert.equal(stream.status, 200);
  const ended = stream.body!.pipeTo(new WritableStream()).then(() => "ended", () => "ended");
  clock.current += 59_999;
  assert.equal(await endpoint.expireIdle(), 0);
  clock.current += 1;
  assert.equal(await endpoint.expireIdle(), 1, "a held stream kept the session alive");
  assert.equal(endpoint.sessionCount, 0);
  assert.equal(await ended, "ended");
  await endpoint.close();
});

Deno.test("startMcpHttpServer() answers 408 to a body not sent within the read deadline, and serves others", async () => {
  const token = "t0ken-t0ken-t0ken";
  const server = startMcpHttpServer(echoServer, {
    hostname: "127.0.0.1",
    port: 0,
    token,
    bodyReadMs: 300,
  });
  const port = Number(new URL(server.url).port);
  const slow = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    // Promises 200 bytes, sends 10, then nothing: a slowloris body.
    await slow.write(new TextEncoder().encode(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
        'Content-Length: 200\r\n\r\n{"jsonrpc"',
    ));
    const answer = new Uint8Array(4096);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = await Promise.race([
      slow.read(answer),
      new Promise<"timeout">((resolve) => (timer = setTimeout(resolve, 10_000, "timeout"))),
    ]);
    clearTimeout(timer);
    assert.notEqual(read, "timeout", "no answer to a body that never came");
    const head = new TextDecoder().decode(answer.subarray(0, typeof read === "number" ? read : 0));
    assert.match(head, /^HTTP\/1\.1 408 /);
    assert.match(head, /\r\nconnection: close\r\n/i);
    const served = await initialize(server.url, token);
    assert.equal(served.status, 200);
    await served.body?.cancel();
  } finally {
    slow.close();
    await server.shutdown();
  }
});

Deno.test("startMcpHttpServer() ends a 2026-era subscription stream after the idle time: held streams free their places", async () => {
  const token = "t0ken-t0ken-t0ken";
  const server = startMcpHttpServer(echoServer, {
    hostname: "127.0.0.1",
    port: 0,
    token,
    maxSessions: 1, // one subscription stream at most
    sessionIdleMs: 400,
  });
  const holder = await connect(server.url, token, { modern: true });
  const other = await connect(server.url, token, { modern: true });
  try {
    const held = await holder.client.listen({ toolsListChanged: true });
    assert.deepEqual(held.honoredFilter, { toolsListChanged: true });
    await assert.rejects(other.client.listen({ toolsListChanged: true }), /limit reached/i);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      held.closed,
      new Promise<"still open">((resolve) => (timer = setTimeout(resolve, 10_000, "still open"))),
    ]);
    clearTimeout(timer);
    assert.equal(ended, "remote", "the held stream was never closed");
    const next = await other.client.listen({ toolsListChanged: true });
    await next.close();
  } finally {
    await holder.client.close();
    await other.client.close();
    await server.shutdown();
  }
});
