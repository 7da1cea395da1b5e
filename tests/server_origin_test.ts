/**
 * One Origin rule for every server syn runs — the chat gateway, MCP over HTTP, the preview:
 * a page's Origin must be the server's own (scheme, host and port) or one allowed in full.
 * A page on another port of the same host is refused by each; their own origin is served.
 */
import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/server";
import { startMcpHttpServer } from "../lib/mcp/mcp_http_server.ts";
import { handlePreviewRequest } from "../lib/preview/mod.ts";
import { gatewayFixture } from "./fakes/chat_gateway.ts";

/** A page on another local port, for a server on `port`. */
const otherPort = (port: number) => `http://127.0.0.1:${port === 65535 ? 1 : port + 1}`;

Deno.test({
  name: "chat gateway: a page on another port is refused (403), its own origin is served",
  async fn() {
    await using fixture = await gatewayFixture();
    const get = async (origin: string) => {
      const response = await fetch(`${fixture.httpUrl}/health`, {
        headers: { origin, authorization: `Bearer ${fixture.token}` },
      });
      await response.body?.cancel();
      return response.status;
    };
    assert.equal(await get(otherPort(fixture.port)), 403);
    assert.equal(await get(`https://127.0.0.1:${fixture.port}`), 403);
    assert.equal(await get(fixture.httpUrl), 200);
    assert.equal(await get(`http://localhost:${fixture.port}`), 200);
  },
});

Deno.test({
  name: "MCP over HTTP: a page on another port is refused (403) unless allowed in full",
  async fn() {
    const token = "t0ken-t0ken-t0ken-t0ken-t0ken-t0ken";
    const allowed = "http://127.0.0.1:1";
    const server = startMcpHttpServer(
      () => new McpServer({ name: "origin", version: "1.0.0" }),
      { hostname: "127.0.0.1", port: 0, token, allowOrigins: [allowed] },
    );
    try {
      const port = Number(new URL(server.url).port);
      const post = async (origin: string) => {
        const response = await fetch(server.url, {
          method: "POST",
          headers: {
            origin,
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        });
        await response.body?.cancel();
        return response.status;
      };
      assert.equal(await post(otherPort(port)), 403);
      assert.equal(await post(`http://localhost:${port}`) === 403, false, "its own origin");
      assert.equal(await post(allowed) === 403, false, "an allowed origin");
    } finally {
      await server.shutdown();
    }
  },
});

Deno.test("preview: a page on another port is refused (403), its own origin is served", () => {
  const content = { files: new Map(), documents: [{}] } as unknown as Parameters<
    typeof handlePreviewRequest
  >[1];
  const ask = (origin: string) =>
    handlePreviewRequest(
      new Request("http://127.0.0.1:8123/asset.json?doc=0", {
        headers: { host: "127.0.0.1:8123", origin },
      }),
      content,
      8123,
    ).status;
  assert.equal(ask("http://127.0.0.1:8124"), 403);
  assert.equal(ask("http://127.0.0.1:8123"), 200);
});
