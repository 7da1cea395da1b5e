/**
 * `syn mcp-serve --http` attacked and used as a real process: the edge (Host, Origin,
 * token), the official SDK client with `Authorization: Bearer`, the start-up refusals,
 * the ready file, shutdown with a request in flight, and `--stdio` alongside.
 */
import assert from "node:assert/strict";
import { connectHttpClient, type HttpChild, spawnHttpServer } from "./fakes/mcp_http_child.ts";
import { waitUntil } from "./fakes/wait_until.ts";
import { runSyn } from "./fakes/cli_io.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

/**
 * One HTTP/1.1 POST to /mcp written by hand: `fetch` does not let a caller choose the
 * Host header, and a DNS-rebinding page does exactly that. Returns the status and body.
 */
async function rawPost(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const lines = [
    "POST /mcp HTTP/1.1",
    ...Object.entries({
      host: `127.0.0.1:${port}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "content-length": String(new TextEncoder().encode(INITIALIZE).length),
      connection: "close",
      ...headers,
    }).map(([name, value]) => `${name}: ${value}`),
  ];
  await conn.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n" + INITIALIZE));
  const text = await new Response(conn.readable).text();
  const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
  assert.ok(status, `not an HTTP response: ${text.slice(0, 200)}`);
  return { status: Number(status[1]), text };
}

async function withServer(
  args: string[],
  body: (server: HttpChild) => Promise<void>,
  options: { env?: Record<string, string>; delayMs?: number } = {},
): Promise<void> {
  const server = await spawnHttpServer(args, options);
  try {
    await body(server);
  } catch (error) {
    await server.stop("SIGKILL");
    throw new Error(`${error instanceof Error ? error.stack : error}\nstderr:\n${server.stderr()}`);
  }
  const status = await server.stop();
  assert.equal(status.code, 0, server.stderr());
}

Deno.test("mcp-serve --http refuses rebound hosts, cross-site origins and missing or wrong tokens", async () => {
  await withServer(["--http", "127.0.0.1:0"], async ({ url, token }) => {
    assert.ok(token && /^[0-9a-f]{64}$/.test(token), "a generated token on the ready line");
    const bearer = `Bearer ${token}`;
    const port = new URL(url).port;
    // DNS rebinding: the page's own name in Host and Origin, resolved to 127.0.0.1.
    const rebound = await rawPost(url, {
      host: `evil.example:${port}`,
      origin: `http://evil.example:${port}`,
      authorization: bearer,
    });
    assert.equal(rebound.status, 421);
    const crossSite = await rawPost(url, { origin: "https://evil.example", authorization: bearer });
    assert.equal(crossSite.status, 403);
    const sameLengthWrong = token.replace(/./g, (digit) => digit === "0" ? "1" : "0");
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${sameLengthWrong}`]) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const refused = await rawPost(url, headers);
      assert.equal(refused.status, 401, authorization ?? "no token");
      assert.match(refused.text, /www-authenticate: Bearer/i);
      assert.ok(refused.text.endsWith("\r\n\r\n"), "a 401 carries no body");
    }
    const served = await rawPost(url, { authorization: bearer });
    assert.equal(served.status, 200);
    assert.match(served.text, /mcp-session-id: [0-9a-f-]{36}/i);
  });
});

Deno.test("mcp-serve --http serves the validator's tools and resources to the official SDK client, in both eras", async () => {
  await withServer(["--http", "127.0.0.1:0"], async ({ url, token }) => {
    for (const modern of [false, true]) {
      const { client } = await connectHttpClient(url, token, { modern });
      try {
        const era = client.getNegotiatedProtocolVersion();
        assert.equal(era === "2026-07-28", modern, `negotiated ${era}`);
        assert.equal(client.getServerVersion()?.name, "syn");
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool) => tool.name === "validate_asset"));
        const valid = await client.callTool({
          name: "validate_asset",
          arguments: { asset: { name: "ok" }, schema: "synesthetic-asset" },
        });
        assert.deepEqual(valid.structuredContent, { ok: true, errors: [] });
        const invalid = await client.callTool({
          name: "validate_asset",
          arguments: { asset: { name: 5 }, schema: "synesthetic-asset" },
        });
        assert.equal(invalid.isError, true);
        const { resources } = await client.listResources();
        assert.ok(resources.some((entry) => entry.uri === "syn://schemas/synesthetic-asset"));
      } finally {
        await client.close();
      }
    }
  });
});

Deno.test("mcp-serve --http takes SYN_SERVER_TOKEN, keeps it off stderr, and writes it only to a 0600 ready file", async () => {
  const token = "team-token-0123456789abcdef-0123456";
  await withServer(["--http", "127.0.0.1:0"], async (server) => {
    assert.equal(server.token, "env:SYN_SERVER_TOKEN");
    assert.ok(!server.stderr().includes(token), "the token is not logged");
    const info = await Deno.stat(server.readyFile);
    assert.equal(info.mode! & 0o777, 0o600);
    const lines = (await Deno.readTextFile(server.readyFile)).split("\n");
    assert.match(lines[0], /^\d+ \S+$/);
    assert.equal(lines[1], `http url=${server.url} token=${token}`);
    const { client } = await connectHttpClient(server.url, token);
    await client.ping();
    await client.close();
  }, { env: { SYN_SERVER_TOKEN: token } });
});

Deno.test("mcp-serve --http refuses --no-auth off loopback and short tokens at start, exit 2", async () => {
  const offLoopback = await runSyn(["mcp-serve", "--http", "0.0.0.0:0", "--no-auth"]);
  assert.equal(offLoopback.code, 2, offLoopback.stderr);
  assert.equal(offLoopback.stderr.trim().split("\n").length, 1, offLoopback.stderr);
  assert.match(
    offLoopback.stderr,
    /--no-auth: serving without a token is refused on 0\.0\.0\.0: .*a token is required/,
  );
  const weak = await runSyn(["mcp-serve", "--http", "127.0.0.1:0"], {
    env: { SYN_SERVER_TOKEN: "short" },
  });
  assert.equal(weak.code, 2, weak.stderr);
  assert.match(weak.stderr, /SYN_SERVER_TOKEN must be 32 or more printable characters/);
});

Deno.test("mcp-serve --http --no-auth on loopback says what it allows and serves without a token", async () => {
  await withServer(["--http", "127.0.0.1:0", "--no-auth"], async (server) => {
    assert.equal(server.token, undefined);
    assert.match(server.stderr(), /mcp:warn no-auth: any program on this machine may call/);
    assert.equal((await rawPost(server.url, {})).status, 200);
    // The Host and Origin checks still hold without a token.
    assert.equal((await rawPost(server.url, { origin: "https://evil.example" })).status, 403);
  });
});

Deno.test("SIGTERM with a slow MCP request in flight over HTTP: the answer arrives, then exit 0", async () => {
  // Every tool call waits 700 ms first (a hook injected by the test's entry point).
  await withServer(["--http", "127.0.0.1:0"], async (server) => {
    const { client } = await connectHttpClient(server.url, server.token);
    try {
      const call = client.callTool({
        name: "validate_asset",
        arguments: { asset: { name: "ok" }, schema: "synesthetic-asset" },
      });
      await waitUntil(
        () => server.stderr().includes("mcp:delay method=validate_asset"),
        "the call to be in flight",
      );
      server.child.kill("SIGTERM");
      const result = await call;
      assert.deepEqual(result.structuredContent, { ok: true, errors: [] });
      assert.equal((await server.child.status).code, 0);
      assert.match(server.stderr(), /mcp:shutdown mode=http/);
    } finally {
      await client.close().catch(() => {});
    }
  }, { delayMs: 700 });
});

Deno.test("mcp-serve --stdio --http: one process serves both; end of input stops both", async () => {
  await withServer(["--stdio", "--http", "127.0.0.1:0"], async (server) => {
    assert.match(server.stderr(), /mcp:ready mode=stdio\n/);
    const { client } = await connectHttpClient(server.url, server.token);
    assert.ok((await client.listTools()).tools.length > 0);
    await client.close();
    await server.stdin.write(
      new TextEncoder().encode('{"jsonrpc":"2.0","id":7,"method":"list_schemas"}\n'),
    );
    await server.stdin.close();
    const reply = JSON.parse((await new Response(server.stdout).text()).trim());
    assert.equal(reply.id, 7);
    assert.equal(reply.result.ok, true);
    assert.equal((await server.child.status).code, 0);
    assert.match(server.stderr(), /mcp:shutdown mode=stdio\n[^]*mcp:shutdown mode=http\n/);
  });
});
