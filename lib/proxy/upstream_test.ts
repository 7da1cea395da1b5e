import assert from "node:assert/strict";
import { describeRefusal, upstreamName, upstreamTargetOf } from "./upstream.ts";

Deno.test("describeRefusal() gives the status and the answer, folded, capped and printable", () => {
  assert.equal(
    describeRefusal({ status: 401, statusText: "Unauthorized" }, ""),
    "HTTP 401 Unauthorized",
  );
  assert.equal(
    describeRefusal({ status: 503, statusText: "" }, '{"error":\n  "busy"}\n'),
    'HTTP 503: {"error": "busy"}',
  );
  const long = describeRefusal(
    { status: 500, statusText: "Internal Server Error" },
    "x".repeat(5000),
  );
  assert.ok(long.length < 400, `${long.length}`);
  assert.ok(long.endsWith("…"));
  const escaped = describeRefusal(
    { status: 400, statusText: "Bad Request" },
    "bad \u001b[31mred\u001b[0m",
  );
  assert.ok(!escaped.includes("\u001b"), escaped);
});

Deno.test("upstreamName() names the script a runner starts, else the program", () => {
  const stdio = (command: string, ...args: string[]) => ({ kind: "stdio" as const, command, args });
  assert.equal(upstreamName(stdio("node", "dist/index.js", "stdio")), "index.js");
  assert.equal(
    upstreamName(stdio("/usr/bin/deno", "run", "-A", "/srv/main.ts", "mcp-serve")),
    "main.ts",
  );
  assert.equal(
    upstreamName(stdio("npx", "-y", "@modelcontextprotocol/server-everything")),
    "server-everything",
  );
  assert.equal(upstreamName(stdio("/opt/bin/syn", "mcp-serve")), "syn");
  assert.equal(
    upstreamName({ kind: "http", url: "https://mcp.example.com/mcp", headers: {} }),
    "mcp.example.com",
  );
});

Deno.test("upstreamTargetOf() takes --upstream-header-env values from the environment given", () => {
  const target = upstreamTargetOf(
    {
      "upstream-url": "https://mcp.example.com/mcp",
      "upstream-header": ["X-Trace: on"],
      "upstream-header-env": ["Authorization=UPSTREAM_AUTH"],
    },
    [],
    { environment: { UPSTREAM_AUTH: "Bearer abc123" } },
  );
  assert.deepEqual(target, {
    kind: "http",
    url: "https://mcp.example.com/mcp",
    headers: { "X-Trace": "on", Authorization: "Bearer abc123" },
  });
  assert.throws(
    () =>
      upstreamTargetOf(
        { "upstream-url": "https://x.example/mcp", "upstream-header-env": ["A=B"] },
        [],
        {
          environment: {},
        },
      ),
    /B is not set/,
  );
  assert.throws(
    () =>
      upstreamTargetOf(
        { "upstream-url": "https://x.example/mcp", "upstream-header-env": ["A=LINE"] },
        [],
        { environment: { LINE: "a\nb" } },
      ),
    /line break/,
  );
});
