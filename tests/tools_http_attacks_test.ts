/**
 * Attacks on `http.get` through the whole tool layer. Two loopback servers count their
 * hits: the "granted" one is reached as 127.0.0.1 (granted exactly where a test allows
 * it), the "forbidden" one only through names and forms that are never granted. Every
 * refusal asserts the forbidden server saw nothing.
 */
import assert from "node:assert/strict";
import { ToolSession, type ToolSessionOptions } from "../lib/tools/mod.ts";
import { runSyn } from "./fakes/cli_io.ts";

interface Server {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

function serve(handler: (url: URL) => Response | Promise<Response>): Server {
  const hits: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    hits.push(url.pathname + url.search);
    return handler(url);
  });
  return { port: server.addr.port, hits, close: () => server.shutdown() };
}

async function world() {
  // /slow answers only when the world is torn down: long after the call's deadline, and the
  // server's shutdown (which waits for handlers) does not wait out a fixed delay.
  const teardown = Promise.withResolvers<void>();
  const forbidden = serve(() => new Response("FORBIDDEN-SERVER-BODY"));
  const granted = serve(async (url) => {
    if (url.pathname === "/to-forbidden") {
      return Response.redirect(`http://localhost:${forbidden.port}/x`, 302);
    }
    if (url.pathname === "/to-file") {
      return new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } });
    }
    if (url.pathname === "/loop") {
      return new Response(null, { status: 302, headers: { location: "/loop" } });
    }
    if (url.pathname === "/hop") {
      return new Response(null, { status: 301, headers: { location: "/plain" } });
    }
    if (url.pathname === "/huge") return new Response("z".repeat(3 * 1024 * 1024));
    if (url.pathname === "/slow") {
      await teardown.promise;
      return new Response("late");
    }
    if (url.pathname === "/missing") return new Response("nope", { status: 404 });
    return new Response(`answer for ${url.pathname}${url.search}`, {
      headers: { "content-type": "text/plain" },
    });
  });
  const stateDir = await Deno.makeTempDir();
  const root = await Deno.makeTempDir();
  return {
    granted,
    forbidden,
    stateDir,
    root,
    async session(options: Partial<ToolSessionOptions> = {}) {
      return await ToolSession.open({
        root,
        stateDir,
        bubblewrap: "off",
        resolveHost: (host) => Promise.resolve(FAKE_DNS[host] ?? ["203.0.113.200"]),
        ...options,
      });
    },
    async [Symbol.asyncDispose]() {
      teardown.resolve();
      await granted.close();
      await forbidden.close();
      await Deno.remove(stateDir, { recursive: true });
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** Names the tests use; anything else resolves to a reserved documentation address. */
const FAKE_DNS: Record<string, string[]> = {
  "localhost": ["127.0.0.1", "::1"],
  "evil.test": ["10.0.0.1"],
  "mixed.test": ["93.184.216.34", "192.168.1.1"],
  "metadata.test": ["169.254.169.254"],
};

type Case = [
  name: string,
  url: (w: { g: number; f: number }) => string,
  granted: string[],
  code: string,
  allowHosts?: string[],
];

const REFUSED: Case[] = [
  ["no capability at all", ({ g }) => `http://127.0.0.1:${g}/a`, [], "capability_required"],
  [
    "net with an allowlist that excludes the host",
    ({ g }) => `http://127.0.0.1:${g}/a`,
    ["net"],
    "capability_required",
    ["example.com"],
  ],
  ["net:<other host> does not cover this one", ({ g }) => `http://127.0.0.1:${g}/a`, [
    "net:example.com",
  ], "capability_required"],
  ["plain net to loopback", ({ f }) => `http://127.0.0.1:${f}/a`, ["net"], "not_allowed"],
  ["decimal IP 2130706433", ({ f }) => `http://2130706433:${f}/a`, ["net"], "not_allowed"],
  ["hex IP 0x7f000001", ({ f }) => `http://0x7f000001:${f}/a`, ["net"], "not_allowed"],
  ["short IP 127.1", ({ f }) => `http://127.1:${f}/a`, ["net"], "not_allowed"],
  ["octal IP 0177.0.0.1", ({ f }) => `http://0177.0.0.1:${f}/a`, ["net"], "not_allowed"],
  ["IPv4-mapped IPv6", ({ f }) => `http://[::ffff:7f00:1]:${f}/a`, ["net"], "not_allowed"],
  ["0.0.0.0", ({ f }) => `http://0.0.0.0:${f}/a`, ["net"], "not_allowed"],
  ["IPv6 loopback", ({ f }) => `http://[::1]:${f}/a`, ["net"], "not_allowed"],
  ["localhost by name", ({ f }) => `http://localhost:${f}/a`, ["net"], "not_allowed"],
  ["localhost. with a trailing dot", ({ f }) => `http://localhost.:${f}/a`, ["net"], "not_allowed"],
  [
    "a name resolving to a private address",
    ({ f }) => `http://evil.test:${f}/a`,
    ["net"],
    "not_allowed",
  ],
  ["a name with one private address among public ones", ({ f }) => `http://mixed.test:${f}/a`, [
    "net",
  ], "not_allowed"],
  [
    "the cloud metadata address",
    () => "http://169.254.169.254/latest/meta-data/",
    ["net"],
    "not_allowed",
  ],
  ["a name resolving to link-local", () => "http://metadata.test/", ["net"], "not_allowed"],
  ["a file: URL", () => "file:///etc/passwd", ["net"], "not_allowed"],
  ["a data: URL", () => "data:text/plain,hello", ["net"], "not_allowed"],
  [
    "credentials in the URL",
    ({ g }) => `http://user:pass@127.0.0.1:${g}/a`,
    ["net:127.0.0.1"],
    "not_allowed",
  ],
  ["a redirect to a host not granted", ({ g }) => `http://127.0.0.1:${g}/to-forbidden`, [
    "net:127.0.0.1",
  ], "capability_required"],
  [
    "a redirect to a file: URL",
    ({ g }) => `http://127.0.0.1:${g}/to-file`,
    ["net:127.0.0.1"],
    "not_allowed",
  ],
  ["a redirect loop", ({ g }) => `http://127.0.0.1:${g}/loop`, ["net:127.0.0.1"], "not_allowed"],
];

for (const [name, url, granted, code, allowHosts] of REFUSED) {
  Deno.test(`http attack is refused: ${name}`, async () => {
    await using w = await world();
    using session = await w.session({ granted, allowHosts });
    const result = await session.call({
      id: "h",
      tool: "http.get",
      args: { url: url({ g: w.granted.port, f: w.forbidden.port }) },
    });
    assert.equal(result.ok, false, JSON.stringify(result));
    assert.equal(result.error?.code, code, JSON.stringify(result));
    assert.deepEqual(w.forbidden.hits, [], "the forbidden server was contacted");
    assert.ok(w.granted.hits.length <= 6, "redirects were not bounded");
  });
}

Deno.test("http: hostile args are refused before anything is contacted", async () => {
  await using w = await world();
  using session = await w.session({ granted: ["net"] });
  for (
    const args of [
      { url: 42 },
      { url: `http://127.0.0.1:${w.forbidden.port}/`, method: "POST" },
      { url: "x".repeat(1024 * 1024) },
      {},
      { url: "not a url" },
    ]
  ) {
    const result = await session.call({ id: "h", tool: "http.get", args });
    assert.equal(result.error?.code, "invalid_args", JSON.stringify(result).slice(0, 300));
  }
  assert.deepEqual(w.forbidden.hits, []);
});

Deno.test("http: an exact grant reaches that host, in any spelling, and overrides the allowlist", async () => {
  await using w = await world();
  using session = await w.session({ granted: ["net:127.0.0.1"], allowHosts: ["example.com"] });
  const result = await session.call({
    id: "h",
    tool: "http.get",
    args: { url: `http://2130706433:${w.granted.port}/hop` },
  });
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.deepEqual(result.output, {
    url: `http://127.0.0.1:${w.granted.port}/hop`,
    final_url: `http://127.0.0.1:${w.granted.port}/plain`,
    status: 200,
    content_type: "text/plain",
    body: "answer for /plain",
    truncated: false,
    cached: false,
  });
  const missing = await session.call({
    id: "h",
    tool: "http.get",
    args: { url: `http://127.0.0.1:${w.granted.port}/missing` },
  });
  assert.equal((missing.output as { status: number }).status, 404);
});

Deno.test("http: the cache is keyed by the full URL and still needs the grant", async () => {
  await using w = await world();
  using session = await w.session({ granted: ["net:127.0.0.1"] });
  const get = (path: string, useCache = true) =>
    session.call({
      id: "h",
      tool: "http.get",
      args: { url: `http://127.0.0.1:${w.granted.port}${path}`, use_cache: useCache },
    });
  assert.equal(((await get("/a")).output as { cached: boolean }).cached, false);
  assert.equal(((await get("/a")).output as { cached: boolean }).cached, true);
  assert.deepEqual(w.granted.hits, ["/a"]);
  const other = await get("/a?x");
  assert.equal((other.output as { body: string }).body, "answer for /a?x");
  const upper = await get("/A");
  assert.equal((upper.output as { body: string }).body, "answer for /A");
  assert.equal(((await get("/a", false)).output as { cached: boolean }).cached, false);
  assert.deepEqual(w.granted.hits, ["/a", "/a?x", "/A", "/a"]);
  session.revoke("net:127.0.0.1");
  const refused = await get("/a");
  assert.equal(refused.error?.code, "capability_required");
});

Deno.test("http: the cache persists across sessions and expires after its TTL", async () => {
  await using w = await world();
  let now = 1_000_000;
  const url = `http://127.0.0.1:${w.granted.port}/ttl`;
  {
    using first = await w.session({ granted: ["net:127.0.0.1"], now: () => now });
    await first.call({ id: "h", tool: "http.get", args: { url } });
  }
  using second = await w.session({ granted: ["net:127.0.0.1"], now: () => now });
  assert.equal(
    ((await second.call({ id: "h", tool: "http.get", args: { url } })).output as {
      cached: boolean;
    }).cached,
    true,
  );
  now += 16 * 60 * 1000;
  assert.equal(
    ((await second.call({ id: "h", tool: "http.get", args: { url } })).output as {
      cached: boolean;
    }).cached,
    false,
  );
  assert.deepEqual(w.granted.hits, ["/ttl", "/ttl"]);
});

Deno.test("http: a huge answer is cut at 1 MiB and a slow one times out", async () => {
  await using w = await world();
  using session = await w.session({ granted: ["net:127.0.0.1"], maxTimeoutMs: 500 });
  const huge = await session.call({
    id: "h",
    tool: "http.get",
    args: { url: `http://127.0.0.1:${w.granted.port}/huge`, use_cache: false },
  });
  assert.equal(huge.ok, true);
  const output = huge.output as { body: string; truncated: boolean };
  assert.equal(output.truncated, true);
  assert.equal(output.body.length, 1024 * 1024);
  const slow = await session.call({
    id: "h",
    tool: "http.get",
    args: { url: `http://127.0.0.1:${w.granted.port}/slow` },
  });
  assert.equal(slow.error?.code, "timeout", JSON.stringify(slow));
});

Deno.test("http: a cached loopback answer is not served to a session that may not reach loopback", async () => {
  await using w = await world();
  const url = `http://127.0.0.1:${w.granted.port}/private?token=1`;
  const hop = `http://127.0.0.1:${w.granted.port}/hop`;
  const named = `http://localhost:${w.granted.port}/by-name`;
  {
    using first = await w.session({ granted: ["net:127.0.0.1", "net:localhost"] });
    for (const target of [url, hop, named]) {
      const result = await first.call({ id: "h", tool: "http.get", args: { url: target } });
      assert.equal(result.ok, true, JSON.stringify(result));
    }
  }
  const seen = w.granted.hits.length;
  const refusedTo: Partial<ToolSessionOptions>[] = [
    { granted: ["net"] },
    { granted: ["net"], allowHosts: ["127.0.0.1", "localhost"] },
    { granted: ["net", "net:example.com"] },
  ];
  for (const options of refusedTo) {
    using second = await w.session(options);
    for (const target of [url, hop, named]) {
      const result = await second.call({ id: "h", tool: "http.get", args: { url: target } });
      assert.equal(
        result.ok,
        false,
        `${target} ${JSON.stringify(options)}: ${JSON.stringify(result)}`,
      );
      assert.equal(result.error?.code, "not_allowed", JSON.stringify(result));
    }
  }
  assert.equal(w.granted.hits.length, seen, "a refused session reached the server");
  using exact = await w.session({ granted: ["net:127.0.0.1"] });
  const again = await exact.call({ id: "h", tool: "http.get", args: { url } });
  assert.equal((again.output as { cached: boolean }).cached, true, JSON.stringify(again));
});

Deno.test("http: a cache row whose hops are missing or malformed is fetched again, not served", async () => {
  await using w = await world();
  const url = `http://127.0.0.1:${w.granted.port}/row`;
  using session = await w.session({ granted: ["net:127.0.0.1"] });
  await session.call({ id: "h", tool: "http.get", args: { url } });
  const { DatabaseSync } = await import("node:sqlite");
  for (const hops of ["", "[]", "{}", "[1]", '[{"host":1,"exact":false}]', "x".repeat(70_000)]) {
    const db = new DatabaseSync(`${w.stateDir}/http_cache.sqlite`);
    db.prepare("UPDATE http_answers SET hops = ?, body = 'TAMPERED'").run(hops);
    db.close();
    const result = await session.call({ id: "h", tool: "http.get", args: { url } });
    assert.equal((result.output as { cached: boolean }).cached, false, hops.slice(0, 40));
    assert.equal((result.output as { body: string }).body, "answer for /row");
  }
});

Deno.test("http: two syn processes on one state folder: the loopback page stays with the exact grant", async () => {
  await using w = await world();
  const url = `http://127.0.0.1:${w.granted.port}/private`;
  const get = (grant: string) =>
    runSyn([
      "tools",
      "run",
      "http.get",
      "--root",
      w.root,
      "--state-dir",
      w.stateDir,
      "--grant",
      grant,
      "--args",
      JSON.stringify({ url }),
    ]);
  const first = await get("net:127.0.0.1");
  assert.equal(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout).output.body, "answer for /private");
  const second = await get("net");
  assert.equal(second.code, 1, second.stderr);
  assert.equal(JSON.parse(second.stdout).error.code, "not_allowed", second.stdout);
  assert.ok(!second.stdout.includes("answer for"), second.stdout);
  const third = await get("net:127.0.0.1");
  assert.equal(JSON.parse(third.stdout).output.cached, true, third.stdout);
  assert.deepEqual(w.granted.hits, ["/private"]);
});
