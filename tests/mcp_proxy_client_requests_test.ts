/**
 * The upstream's requests to the client through `syn mcp-proxy --http --upstream-url`: the
 * client's progress reaches the upstream under the upstream's own token, and the upstream's
 * cancellation reaches the client's handler. The upstream is an SDK server on Streamable
 * HTTP in this process.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { spawnHttpServer } from "./fakes/mcp_http_child.ts";

const SAMPLE = {
  messages: [{ role: "user" as const, content: { type: "text" as const, text: "hello" } }],
  maxTokens: 10,
};

/**
 * Tools that ask the client for a sample: `ask` (with progress), `ask_then_cancel`,
 * `ask_late` (after 300 ms); and `slow`, which answers after a second.
 */
function askingUpstream(): { url: string; close(): Promise<void> } {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const served = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const id = request.headers.get("mcp-session-id");
      if (id !== null) {
        const transport = sessions.get(id);
        return transport
          ? await transport.handleRequest(request)
          : new Response("no such session", { status: 404 });
      }
      const server = new Server({ name: "asking-upstream", version: "1.0.0" }, {
        capabilities: { tools: {} },
      });
      server.setRequestHandler("tools/list", () => ({
        tools: ["ask", "ask_then_cancel", "ask_late", "slow"].map((name) => ({
          name,
          inputSchema: { type: "object" as const },
        })),
      }));
      server.setRequestHandler("tools/call", async (call) => {
        if (call.params.name === "slow") {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          return { content: [{ type: "text", text: "slow done" }] };
        }
        if (call.params.name === "ask_late") {
          await new Promise((resolve) => setTimeout(resolve, 300));
          try {
            const sample = await server.createMessage(SAMPLE);
            const text = (sample.content as { text?: string }).text;
            return { content: [{ type: "text", text: String(text) }] };
          } catch (error) {
            return { content: [{ type: "text", text: `refused: ${(error as Error).message}` }] };
          }
        }
        if (call.params.name === "ask") {
          const progress: number[] = [];
          const sample = await server.createMessage(SAMPLE, {
            onprogress: (update) => progress.push(update.progress),
          });
          const text = (sample.content as { text?: string }).text;
          return { content: [{ type: "text", text: `${text}; progress ${progress.join(",")}` }] };
        }
        const stop = new AbortController();
        setTimeout(() => stop.abort("enough"), 300);
        try {
          await server.createMessage(SAMPLE, { signal: stop.signal });
          return { content: [{ type: "text", text: "answered" }] };
        } catch {
          // Over HTTP the cancellation and the answer travel on different streams: the call
          // stays open a moment, so the cancellation reaches the client on the call's stream.
          await new Promise((resolve) => setTimeout(resolve, 300));
          return { content: [{ type: "text", text: "cancelled by the upstream" }] };
        }
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
        onsessionclosed: (sessionId) => void sessions.delete(sessionId),
      });
      await server.connect(transport);
      return await transport.handleRequest(request);
    },
  );
  return {
    url: `http://127.0.0.1:${served.addr.port}/mcp`,
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      await served.shutdown();
    },
  };
}

Deno.test({
  name:
    "through mcp-proxy, the client's progress on a sampling request reaches the upstream, and the upstream's cancellation reaches the client",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_client_requests_" });
  const upstream = askingUpstream();
  const proxy = await spawnHttpServer(
    [
      "--http",
      "127.0.0.1:0",
      "--no-record",
      "--state-dir",
      `${dir}/state`,
      "--upstream-url",
      upstream.url,
    ],
    { command: "mcp-proxy" },
  );
  try {
    const cancelledSeen = Promise.withResolvers<boolean>();
    const client = new Client({ name: "asked", version: "1.0.0" }, {
      capabilities: { sampling: {} },
    });
    client.setRequestHandler("sampling/createMessage", async (request, ctx) => {
      const token = request.params._meta?.progressToken;
      if (token !== undefined) {
        for (const progress of [1, 2]) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress, total: 2 },
          });
        }
        return { role: "assistant", content: { type: "text", text: "sampled" }, model: "m" };
      }
      // No token: this is the request the upstream cancels; wait for it (10 s at most).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (cancelledSeen.resolve(false), resolve()), 10_000);
        ctx.mcpReq.signal.addEventListener("abort", () => {
          cancelledSeen.resolve(true);
          clearTimeout(timer);
          resolve();
        });
      });
      return { role: "assistant", content: { type: "text", text: "too late" }, model: "m" };
    });
    const transport = new StreamableHTTPClientTransport(new URL(proxy.url), {
      requestInit: { headers: { authorization: `Bearer ${proxy.token}` } },
    });
    await client.connect(transport);
    try {
      const asked = await client.callTool({ name: "ask", arguments: {} });
      assert.deepEqual(
        asked.content,
        [{ type: "text", text: "sampled; progress 1,2" }],
        proxy.stderr(),
      );
      const cancelled = await client.callTool({ name: "ask_then_cancel", arguments: {} });
      assert.deepEqual(cancelled.content, [{ type: "text", text: "cancelled by the upstream" }]);
      // The cancellation and the tool's answer travel apart: wait for the first (10 s at most).
      assert.equal(await cancelledSeen.promise, true, proxy.stderr());
      await transport.terminateSession();
    } finally {
      await client.close();
    }
  } finally {
    const status = await proxy.stop();
    assert.equal(status.code, 0, proxy.stderr());
    await upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "with --shared-upstream, a request of the upstream while two sessions have calls in flight is refused with the reason",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_shared_routing_" });
  const upstream = askingUpstream();
  const proxy = await spawnHttpServer(
    [
      "--http",
      "127.0.0.1:0",
      "--shared-upstream",
      "--no-record",
      "--state-dir",
      `${dir}/state`,
      "--upstream-url",
      upstream.url,
    ],
    { command: "mcp-proxy" },
  );
  const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
  try {
    for (const name of ["first", "second"]) {
      const client = new Client({ name, version: "1.0.0" }, { capabilities: { sampling: {} } });
      client.setRequestHandler("sampling/createMessage", () => ({
        role: "assistant",
        content: { type: "text", text: `sampled by the ${name}` },
        model: "m",
      }));
      const transport = new StreamableHTTPClientTransport(new URL(proxy.url), {
        requestInit: { headers: { authorization: `Bearer ${proxy.token}` } },
      });
      await client.connect(transport);
      clients.push({ client, transport });
    }
    const [first, second] = clients.map(({ client }) => client);
    // One session busy: its request is the one the upstream's belongs to.
    const alone = await first.callTool({ name: "ask_late", arguments: {} });
    assert.deepEqual(alone.content, [{ type: "text", text: "sampled by the first" }]);
    // Both busy: no telling which call caused it.
    const [late] = await Promise.all([
      first.callTool({ name: "ask_late", arguments: {} }),
      second.callTool({ name: "slow", arguments: {} }),
    ]);
    assert.match(
      JSON.stringify(late.content),
      /refused: .*no single client session has a request in flight on the shared upstream/,
      proxy.stderr(),
    );
  } finally {
    for (const { client, transport } of clients) {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
    const status = await proxy.stop();
    assert.equal(status.code, 0, proxy.stderr());
    await upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
});
