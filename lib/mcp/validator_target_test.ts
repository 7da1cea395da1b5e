import assert from "node:assert/strict";
import { loadConfig, splitShellWords, SynError } from "../core/mod.ts";
import { resolveValidatorTarget } from "./validator_target.ts";

const SELF = ["/bin/syn"];
const envOf = (values: Record<string, string>) => loadConfig((name) => values[name]);

Deno.test("resolveValidatorTarget() starts our own stdio child when nothing is configured", () => {
  assert.deepEqual(resolveValidatorTarget(envOf({}), SELF), {
    transport: "stdio",
    command: ["/bin/syn", "mcp-serve", "--stdio"],
    own: true,
  });
  assert.deepEqual(resolveValidatorTarget(envOf({ MCP_ENDPOINT: "stdio" }), SELF), {
    transport: "stdio",
    command: ["/bin/syn", "mcp-serve", "--stdio"],
    own: true,
  });
});

Deno.test("resolveValidatorTarget() follows MCP_ENDPOINT and its companion variables", () => {
  assert.deepEqual(
    resolveValidatorTarget(
      envOf({ MCP_ENDPOINT: "tcp", MCP_HOST: "10.0.0.2", MCP_PORT: "7000" }),
      SELF,
    ),
    { transport: "tcp", hostname: "10.0.0.2", port: 7000 },
  );
  assert.deepEqual(resolveValidatorTarget(envOf({ MCP_PORT: "7001" }), SELF), {
    transport: "tcp",
    hostname: "127.0.0.1",
    port: 7001,
  });
  assert.deepEqual(
    resolveValidatorTarget(envOf({ MCP_ENDPOINT: "socket", MCP_SOCKET_PATH: "/tmp/x.sock" }), SELF),
    { transport: "socket", path: "/tmp/x.sock" },
  );
  assert.deepEqual(
    resolveValidatorTarget(
      envOf({ MCP_ENDPOINT: "stdio", MCP_ADAPTER_CMD: `python -m "mcp server" --flag='a b'` }),
      SELF,
    ),
    { transport: "stdio", command: ["python", "-m", "mcp server", "--flag=a b"], own: false },
  );
});

Deno.test("resolveValidatorTarget() falls back to tcp with one warning for an unknown endpoint", () => {
  const warnings: string[] = [];
  const target = resolveValidatorTarget(
    envOf({ MCP_ENDPOINT: "carrier-pigeon", MCP_PORT: "9" }),
    SELF,
    { warn: (line) => warnings.push(line) },
  );
  assert.deepEqual(target, { transport: "tcp", hostname: "127.0.0.1", port: 9 });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /carrier-pigeon.*using tcp/);
});

Deno.test("resolveValidatorTarget() is a clear error for tcp without a port or socket without a path", () => {
  const isConfigError = (error: unknown) =>
    error instanceof SynError && error.code === "validator_config";
  assert.throws(() => resolveValidatorTarget(envOf({ MCP_ENDPOINT: "tcp" }), SELF), isConfigError);
  assert.throws(
    () => resolveValidatorTarget(envOf({ MCP_ENDPOINT: "tcp", MCP_HOST: "127.0.0.1" }), SELF),
    (error) => isConfigError(error) && /needs MCP_PORT/.test((error as Error).message),
  );
  assert.throws(() => resolveValidatorTarget(envOf({ MCP_HOST: "h" }), SELF), isConfigError);
  const warnings: string[] = [];
  assert.throws(
    () =>
      resolveValidatorTarget(envOf({ MCP_ENDPOINT: "udp" }), SELF, {
        warn: (l) => warnings.push(l),
      }),
    isConfigError,
  );
  assert.equal(warnings.length, 1, "the fallback warning, then the error");
  assert.throws(
    () => resolveValidatorTarget(envOf({ MCP_ENDPOINT: "tcp", MCP_PORT: "http" }), SELF),
    isConfigError,
  );
  assert.throws(
    () => resolveValidatorTarget(envOf({ MCP_ENDPOINT: "socket" }), SELF),
    isConfigError,
  );
  assert.throws(
    () => resolveValidatorTarget(envOf({ MCP_ENDPOINT: "stdio", MCP_ADAPTER_CMD: "'open" }), SELF),
    isConfigError,
  );
});

Deno.test("resolveValidatorTarget() warns once per variable that SYN_SCHEMAS_DIR is ignored remotely", () => {
  const warnings: string[] = [];
  resolveValidatorTarget(
    envOf({ MCP_ENDPOINT: "socket", MCP_SOCKET_PATH: "/s", SYN_SCHEMAS_DIR: "/schemas" }),
    SELF,
    { warn: (line) => warnings.push(line) },
  );
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /SYN_SCHEMAS_DIR is deprecated and ignored for socket/);
});

Deno.test("resolveValidatorTarget() warns once that SYN_SCHEMAS_DIR is deprecated when forwarded to a stdio child", () => {
  for (
    const env of <Record<string, string>[]> [
      { SYN_SCHEMAS_DIR: "/schemas" },
      { SYN_SCHEMAS_DIR: "/schemas", MCP_ENDPOINT: "stdio", MCP_ADAPTER_CMD: "adapter --x" },
    ]
  ) {
    const warnings: string[] = [];
    const target = resolveValidatorTarget(envOf(env), SELF, {
      warn: (line) => warnings.push(line),
    });
    assert.equal(target.transport, "stdio");
    assert.equal(warnings.length, 1, JSON.stringify(env));
    assert.match(warnings[0], /^validator: SYN_SCHEMAS_DIR is deprecated; forwarded to the stdio/);
  }
  const none: string[] = [];
  resolveValidatorTarget(envOf({ SYN_EXAMPLES_DIR: "/examples" }), SELF, {
    warn: (line) => none.push(line),
  });
  assert.deepEqual(none, [], "nothing deprecated is set");
});

Deno.test("MCP_ADAPTER_CMD is split by the one shell-word splitter shell.exec uses", () => {
  const adapter = (line: string) =>
    resolveValidatorTarget(envOf({ MCP_ENDPOINT: "stdio", MCP_ADAPTER_CMD: line }), SELF);
  for (const line of [`a "b c" 'd "e"' f\\ g "h\\"i" ''`, `prog "a\\$b" "c\\d"`]) {
    const command = splitShellWords(line);
    assert.deepEqual(adapter(line), { transport: "stdio", command, own: false }, line);
  }
  // POSIX: inside double quotes a backslash escapes `$`, and stays before other characters.
  assert.deepEqual(splitShellWords(`prog "a\\$b" "c\\d"`), ["prog", "a$b", "c\\d"]);
  // Nothing is expanded, so what a shell would expand is refused rather than passed on.
  for (const line of ["prog $HOME", "prog *", "prog; rm x", "a | b"]) {
    assert.throws(
      () => adapter(line),
      (error) => error instanceof SynError && error.code === "validator_config",
      line,
    );
  }
});
