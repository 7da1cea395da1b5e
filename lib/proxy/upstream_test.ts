import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import {
  connectUpstream,
  describeRefusal,
  upstreamName,
  upstreamSecrets,
  upstreamTargetOf,
} from "./upstream.ts";

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

Deno.test("upstreamTargetOf() reads header values from the environment given", () => {
  const target = upstreamTargetOf(
    {
      url: "https://mcp.example.com/mcp",
      headers: ["X-Trace: on"],
      headerVariables: ["Authorization=UPSTREAM_AUTH"],
    },
    { environment: { UPSTREAM_AUTH: "Bearer abc123" } },
  );
  assert.deepEqual(target, {
    kind: "http",
    url: "https://mcp.example.com/mcp",
    headers: { "X-Trace": "on", Authorization: "Bearer abc123" },
  });
  assert.deepEqual(upstreamTargetOf({ command: ["node", "server.js"] }), {
    kind: "stdio",
    command: "node",
    args: ["server.js"],
  });
});

Deno.test("upstreamTargetOf() refuses a bad value with invalid_option naming its setting, not a flag", () => {
  const url = "https://x.example/mcp";
  const cases: [Parameters<typeof upstreamTargetOf>[0], Record<string, string>, string, RegExp][] =
    [
      [
        { url: "ftp://user:pw@x.example/" },
        {},
        "upstream-url",
        /not an http:\/\/ or https:\/\/ URL/,
      ],
      [{ url, headers: ["no colon"] }, {}, "upstream-header", /'Name: value'/],
      [{ url, headerVariables: ["A: b"] }, {}, "upstream-header-env", /takes 'Name=ENV_NAME'/],
      [{ url, headerVariables: ["A=B"] }, {}, "upstream-header-env", /A=B: B is not set/],
      [{ url, headerVariables: ["A=LINE"] }, { LINE: "a\nb" }, "upstream-header-env", /line break/],
    ];
  for (const [spec, environment, option, message] of cases) {
    assert.throws(
      () => upstreamTargetOf(spec, { environment }),
      (error) =>
        error instanceof SynError && error.code === "invalid_option" &&
        error.data.option === option && message.test(error.message) &&
        !error.message.includes("--") && !error.message.includes("pw"),
      option,
    );
  }
});

Deno.test("connectUpstream() passes a command's stderr lines on, a long one cut to 4 KiB and …, and names them when it fails", async () => {
  const lines: string[] = [];
  const script = 'printf "%5000s\\n" "" | tr " " y >&2; printf "short\\r\\nlast" >&2; exit 3';
  const connecting = connectUpstream(
    { kind: "stdio", command: "sh", args: ["-c", script], env: { PATH: Deno.env.get("PATH")! } },
    { stderrLine: (line) => void lines.push(line) },
  );
  const limit = AbortSignal.timeout(20_000);
  const failure = await Promise.race([
    connecting.then(() => "connected", (error: Error) => error.message),
    new Promise<string>((resolve) => limit.addEventListener("abort", () => resolve("timed out"))),
  ]);
  assert.deepEqual(lines, [`${"y".repeat(4096)}…`, "short", "last"]);
  assert.match(failure, /its last stderr lines: y+… \| short \| last$/);
});

Deno.test("upstreamSecrets() holds the header values and the URL's credentials in every form they travel in", () => {
  const secrets = upstreamSecrets({
    kind: "http",
    url: "https://robot:p%40ssword@mcp.example/mcp",
    headers: { Authorization: "Bearer abc123", "X-Short": "on" },
  });
  for (const form of ["Bearer abc123", "robot", "p%40ssword", "p@ssword", btoa("robot:p@ssword")]) {
    assert.ok(secrets.includes(form), form);
  }
  assert.ok(!secrets.includes("on"), "too short to mask");
  assert.deepEqual(upstreamSecrets({ kind: "stdio", command: "node", args: [] }), []);
});
