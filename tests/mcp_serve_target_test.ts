/** Where `syn mcp-serve` listens: flags over the environment, read like the client reads it. */
import assert from "node:assert/strict";
import { loadConfig, SynError, UsageError } from "../lib/core/mod.ts";
import { resolveServeTarget } from "../lib/cli/mcp_serve.ts";

const isConfigError = (error: unknown) =>
  error instanceof SynError && error.code === "validator_config";
const envOf = (values: Record<string, string>) => loadConfig((name) => values[name]);

Deno.test("resolveServeTarget() serves stdio when nothing is configured", () => {
  assert.deepEqual(resolveServeTarget({}, envOf({})), { mode: "stdio" });
  assert.deepEqual(resolveServeTarget({}, envOf({ MCP_ENDPOINT: " " })), { mode: "stdio" });
});

Deno.test("resolveServeTarget() lets every flag win over the environment", () => {
  const tcpEnv = envOf({ MCP_ENDPOINT: "tcp", MCP_HOST: "10.1.1.1", MCP_PORT: "7000" });
  const socketEnv = envOf({ MCP_ENDPOINT: "socket", MCP_SOCKET_PATH: "/env.sock" });
  assert.deepEqual(resolveServeTarget({ stdio: true }, tcpEnv), { mode: "stdio" });
  assert.deepEqual(resolveServeTarget({ stdio: true }, socketEnv), { mode: "stdio" });
  assert.deepEqual(resolveServeTarget({ tcp: "127.0.0.1:0" }, socketEnv), {
    mode: "tcp",
    hostname: "127.0.0.1",
    port: 0,
  });
  assert.deepEqual(resolveServeTarget({ socket: "/flag.sock" }, tcpEnv), {
    mode: "socket",
    path: "/flag.sock",
  });
  assert.deepEqual(resolveServeTarget({ tcp: "[::1]:7001" }, envOf({})), {
    mode: "tcp",
    hostname: "::1",
    port: 7001,
  });
});

Deno.test("resolveServeTarget() reads MCP_ENDPOINT and its companions", () => {
  assert.deepEqual(
    resolveServeTarget({}, envOf({ MCP_ENDPOINT: "TCP", MCP_HOST: "0.0.0.0", MCP_PORT: "7000" })),
    { mode: "tcp", hostname: "0.0.0.0", port: 7000 },
  );
  assert.deepEqual(resolveServeTarget({}, envOf({ MCP_PORT: "7002" })), {
    mode: "tcp",
    hostname: "127.0.0.1",
    port: 7002,
  });
  assert.deepEqual(
    resolveServeTarget({}, envOf({ MCP_ENDPOINT: "socket", MCP_SOCKET_PATH: "/s.sock" })),
    { mode: "socket", path: "/s.sock" },
  );
  assert.deepEqual(
    resolveServeTarget({}, envOf({ MCP_ENDPOINT: "stdio", MCP_PORT: "7000" })),
    { mode: "stdio" },
  );
});

Deno.test("resolveServeTarget() falls back to tcp with one warning for an unknown MCP_ENDPOINT", () => {
  const warnings: string[] = [];
  const target = resolveServeTarget(
    {},
    envOf({ MCP_ENDPOINT: "http", MCP_PORT: "7003" }),
    (line) => warnings.push(line),
  );
  assert.deepEqual(target, { mode: "tcp", hostname: "127.0.0.1", port: 7003 });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /MCP_ENDPOINT="http".*using tcp/);
});

Deno.test("resolveServeTarget() rejects what cannot work: flags (usage), MCP_* (validator_config)", () => {
  const cases: [Parameters<typeof resolveServeTarget>[0], Record<string, string>, RegExp][] = [
    [{ stdio: true, tcp: "127.0.0.1:1" }, {}, /choose one/],
    [{ tcp: "nohost" }, {}, /HOST:PORT/],
    [{ tcp: "h:70000" }, {}, /tcp/],
    [{ socket: "" }, {}, /--socket takes a path/],
    [{}, { MCP_ENDPOINT: "tcp" }, /MCP_PORT/],
    [{}, { MCP_HOST: "127.0.0.1" }, /MCP_PORT/],
    [{}, { MCP_ENDPOINT: "tcp", MCP_PORT: "seven" }, /MCP_PORT/],
    [{}, { MCP_ENDPOINT: "socket" }, /MCP_SOCKET_PATH/],
  ];
  for (const [flags, env, message] of cases) {
    assert.throws(
      () => resolveServeTarget(flags, envOf(env)),
      (error) =>
        (Object.keys(env).length ? isConfigError(error) : error instanceof UsageError) &&
        message.test((error as Error).message),
      JSON.stringify({ flags, env }),
    );
  }
});
