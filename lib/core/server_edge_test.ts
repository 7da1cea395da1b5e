import assert from "node:assert/strict";
import {
  constantTimeEqual,
  hostnameOfHost,
  isLoopbackHostname,
  newServerToken,
  parseAllowedOrigin,
  ServerEdge,
} from "./server_edge.ts";
import { serveLocal } from "./serve_local.ts";

const TOKEN = "a".repeat(64);

function request(headers: Record<string, string>, path = "/"): Request {
  return new Request(`http://127.0.0.1:8080${path}`, { headers });
}

Deno.test("ServerEdge refuses a rebound Host even when the Origin matches it", () => {
  const edge = new ServerEdge({ boundHostname: "127.0.0.1", port: 8080, token: TOKEN });
  const refused = edge.check(request({
    host: "evil.example:8080",
    origin: "http://evil.example:8080",
    authorization: `Bearer ${TOKEN}`,
  }));
  assert.equal(refused?.status, 421);
});

Deno.test("ServerEdge answers to loopback names, the bound address and --allow-host, any port", () => {
  const edge = new ServerEdge({
    boundHostname: "192.168.5.9",
    port: 8080,
    allowHosts: ["Proxy.Example"],
  });
  for (
    const host of ["localhost:1", "127.0.0.1", "[::1]:8080", "192.168.5.9:80", "proxy.example."]
  ) {
    assert.equal(edge.check(request({ host })), undefined, host);
  }
  for (const host of ["127.0.0.2:8080", "evil.example", "localhost.evil.example", "[::2]", ""]) {
    assert.equal(edge.check(request({ host }))?.status, 421, host);
  }
});

Deno.test("ServerEdge refuses a cross-site or opaque Origin and lets a missing one through", () => {
  const edge = new ServerEdge({ boundHostname: "127.0.0.1", port: 8080 });
  const host = "127.0.0.1:8080";
  assert.equal(edge.check(request({ host, origin: "http://evil.example" }))?.status, 403);
  assert.equal(edge.check(request({ host, origin: "null" }))?.status, 403);
  assert.equal(edge.check(request({ host, origin: "file://" }))?.status, 403);
  assert.equal(edge.check(request({ host })), undefined);
});

Deno.test("ServerEdge takes only its own origin: scheme, host and port", () => {
  const edge = new ServerEdge({
    boundHostname: "127.0.0.1",
    port: 8080,
    allowHosts: ["proxy.test"],
  });
  const host = "127.0.0.1:8080";
  for (
    const origin of [
      "http://127.0.0.1:8080",
      "http://localhost:8080",
      "http://[::1]:8080",
      "http://LOCALHOST.:8080",
      "http://proxy.test:8080",
    ]
  ) {
    assert.equal(edge.check(request({ host, origin })), undefined, origin);
  }
  for (
    const origin of [
      "http://127.0.0.1:3000", // another local server: same site, another origin
      "http://localhost:3000",
      "http://127.0.0.1", // port 80
      "https://127.0.0.1:8080", // not this server's scheme
      "ws://127.0.0.1:8080",
      "http://proxy.test",
      "https://proxy.test",
      "http://127.0.0.2:8080",
    ]
  ) {
    assert.equal(edge.check(request({ host, origin }))?.status, 403, origin);
  }
});

Deno.test("ServerEdge takes an allowed origin exactly as given, default ports included", () => {
  const edge = new ServerEdge({
    boundHostname: "127.0.0.1",
    port: 8080,
    allowOrigins: ["https://Chat.Example", "http://127.0.0.1:9000/"],
  });
  const host = "127.0.0.1:8080";
  for (
    const origin of ["https://chat.example", "https://chat.example:443", "http://127.0.0.1:9000"]
  ) {
    assert.equal(edge.check(request({ host, origin })), undefined, origin);
  }
  for (
    const origin of ["http://chat.example", "https://chat.example:8443", "http://127.0.0.1:9001"]
  ) {
    assert.equal(edge.check(request({ host, origin }))?.status, 403, origin);
  }
});

Deno.test("ServerEdge listens on port 80: the origin without a port is its own", () => {
  const edge = new ServerEdge({ boundHostname: "127.0.0.1", port: 80 });
  const host = "127.0.0.1";
  assert.equal(edge.check(request({ host, origin: "http://127.0.0.1" })), undefined);
  assert.equal(edge.check(request({ host, origin: "http://127.0.0.1:80" })), undefined);
  assert.equal(edge.check(request({ host, origin: "http://127.0.0.1:8080" }))?.status, 403);
});

Deno.test("parseAllowedOrigin() takes scheme://host[:port] and nothing more", () => {
  assert.equal(parseAllowedOrigin("https://Chat.Example:443"), "https://chat.example");
  assert.equal(parseAllowedOrigin("http://[::1]:9000/"), "http://[::1]:9000");
  for (
    const bad of ["chat.example", "https://chat.example/path", "ftp://x", "null", "https://u@x"]
  ) {
    assert.throws(() => parseAllowedOrigin(bad), /an allowed origin is scheme:\/\/host/, bad);
  }
});

Deno.test("ServerEdge takes the token by header, cookie or query and nothing else", () => {
  const edge = new ServerEdge({ boundHostname: "127.0.0.1", port: 8080, token: TOKEN });
  const host = "127.0.0.1:8080";
  const wrongSameLength = "b".repeat(64);
  const cases: Record<string, string>[] = [{ host }, {
    host,
    authorization: `Bearer ${wrongSameLength}`,
  }];
  for (const headers of cases) {
    const refused = edge.check(request(headers));
    assert.equal(refused?.status, 401);
    assert.equal(refused?.body, null);
  }
  assert.equal(edge.check(request({ host }, `/?token=${TOKEN.slice(1)}`))?.status, 401);
  assert.equal(edge.check(request({ host, cookie: `syn_token_9999=${TOKEN}` }))?.status, 401);
  assert.equal(edge.tokenChannel(request({ host, authorization: `Bearer ${TOKEN}` })), "header");
  assert.equal(
    edge.tokenChannel(request({ host, cookie: `a=1; syn_token_8080=${TOKEN}` })),
    "cookie",
  );
  assert.equal(edge.tokenChannel(request({ host }, `/?token=${TOKEN}`)), "query");
});

Deno.test("ServerEdge.wrap sets an HttpOnly, SameSite=Strict cookie only for a page opened by query", async () => {
  const edge = new ServerEdge({ boundHostname: "127.0.0.1", port: 8080, token: TOKEN });
  let served = 0;
  const handler = edge.wrap(() => {
    served++;
    return new Response("page");
  });
  const byQuery = await handler(request({ host: "127.0.0.1:8080" }, `/?token=${TOKEN}`));
  const cookie = byQuery.headers.get("set-cookie") ?? "";
  assert.match(cookie, /^syn_token_8080=a{64}; Path=\/; HttpOnly; SameSite=Strict$/);
  const byHeader = await handler(
    request({ host: "localhost:8080", authorization: `Bearer ${TOKEN}` }),
  );
  assert.equal(byHeader.headers.get("set-cookie"), null);
  const refused = await handler(request({ host: "localhost:8080" }));
  assert.equal(refused.status, 401);
  assert.equal(served, 2);
});

Deno.test("constantTimeEqual compares whole byte strings", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  assert.equal(constantTimeEqual(bytes("abc"), bytes("abc")), true);
  assert.equal(constantTimeEqual(bytes("abc"), bytes("abd")), false);
  assert.equal(constantTimeEqual(bytes("abc"), bytes("ab")), false);
  assert.equal(constantTimeEqual(bytes("abc"), bytes("abcabc")), false);
  assert.equal(constantTimeEqual(bytes("abc"), bytes("")), false);
});

Deno.test("hostnameOfHost, isLoopbackHostname and newServerToken", () => {
  assert.equal(hostnameOfHost("[::1]:80"), "::1");
  assert.equal(hostnameOfHost("example.com:8080"), "example.com");
  assert.equal(hostnameOfHost("example.com"), "example.com");
  assert.equal(isLoopbackHostname("127.9.0.1"), true);
  assert.equal(isLoopbackHostname("[::1]"), true);
  assert.equal(isLoopbackHostname("0.0.0.0"), false);
  const token = newServerToken();
  assert.match(token, /^[0-9a-f]{64}$/);
  assert.notEqual(token, newServerToken());
});

Deno.test("serveLocal puts the edge in front of the handler on a real socket", async () => {
  const stopping = new AbortController();
  const { server, url } = serveLocal(
    { hostname: "127.0.0.1", port: 0, signal: stopping.signal, token: TOKEN },
    () => new Response("served"),
  );
  try {
    const { port } = server.addr;
    assert.equal(url, `http://127.0.0.1:${port}/`);
    const denied = await fetch(url);
    assert.equal(denied.status, 401);
    await denied.body?.cancel();
    const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(await ok.text(), "served");
    // fetch keeps its own Host header: speak HTTP/1.1 by hand, as a rebound page would.
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    const head = `GET / HTTP/1.1\r\nHost: evil.example:${port}\r\n` +
      `Authorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`;
    await connection.write(new TextEncoder().encode(head));
    const answer = await new Response(connection.readable).text();
    assert.match(answer, /^HTTP\/1\.1 421 /);
    assert.doesNotMatch(answer, /served/);
  } finally {
    stopping.abort();
    await server.finished;
  }
});
