import assert from "node:assert/strict";
import { loadConfig, SynError } from "../core/mod.ts";
import { resolveHttpTarget } from "./_http_serving.ts";

const envOf = (values: Record<string, string>) => loadConfig((name) => values[name]);

Deno.test("resolveHttpTarget() takes SYN_SERVER_TOKEN, or a fresh token, and the extra hosts", () => {
  const fresh = () => "generated-token-0123456789";
  assert.equal(resolveHttpTarget({}, envOf({}), fresh), undefined);
  assert.deepEqual(resolveHttpTarget({ http: "127.0.0.1:0" }, envOf({}), fresh), {
    hostname: "127.0.0.1",
    port: 0,
    token: "generated-token-0123456789",
    tokenFromEnv: false,
    allowHosts: [],
    allowOrigins: [],
  });
  assert.deepEqual(
    resolveHttpTarget(
      { http: "0.0.0.0:8765", "allow-host": ["mcp.example.org", "[::1]"] },
      envOf({ SYN_SERVER_TOKEN: " team-token-0123456789-0123456789 " }),
      fresh,
    ),
    {
      hostname: "0.0.0.0",
      port: 8765,
      token: "team-token-0123456789-0123456789",
      tokenFromEnv: true,
      allowHosts: ["mcp.example.org", "[::1]"],
      allowOrigins: [],
    },
  );
});

Deno.test("resolveHttpTarget() takes --allow-origin in full, and only with --http", () => {
  const target = resolveHttpTarget(
    { http: "127.0.0.1:0", "allow-origin": ["https://MCP.example.org:443"] },
    envOf({}),
  );
  assert.deepEqual(target?.allowOrigins, ["https://mcp.example.org"]);
  for (const origin of ["mcp.example.org", "https://mcp.example.org/mcp"]) {
    assert.throws(
      () => resolveHttpTarget({ http: "127.0.0.1:0", "allow-origin": [origin] }, envOf({})),
      /an allowed origin is scheme:\/\/host\[:port\]/,
      origin,
    );
  }
  assert.throws(
    () => resolveHttpTarget({ "allow-origin": ["https://a.example"] }, envOf({})),
    /--allow-origin needs --http/,
  );
});

Deno.test("resolveHttpTarget() drops the token only for --no-auth on a loopback address", () => {
  for (const http of ["127.0.0.1:0", "localhost:9", "[::1]:0", "127.8.0.1:0"]) {
    assert.equal(resolveHttpTarget({ http, "no-auth": true }, envOf({}))?.token, undefined, http);
  }
  for (const http of ["0.0.0.0:0", "192.168.1.5:0", "[::]:0", ":0x"]) {
    assert.throws(
      () => resolveHttpTarget({ http, "no-auth": true }, envOf({})),
      (error) => error instanceof SynError && ["invalid_option", "usage"].includes(error.code),
      http,
    );
  }
});

Deno.test("resolveHttpTarget() refuses weak tokens, bad host names and options without --http", () => {
  const env = (token: string) => envOf({ SYN_SERVER_TOKEN: token });
  // The rule chat serve follows too: 32 characters or more (a 20-character token is refused).
  for (const weak of ["short", "twenty-characters-20"]) {
    assert.throws(() => resolveHttpTarget({ http: "127.0.0.1:0" }, env(weak)), /32 or more/);
  }
  assert.throws(
    () => resolveHttpTarget({ http: "127.0.0.1:0" }, env("has a space in the token")),
    /no spaces/,
  );
  for (const name of ["https://proxy.example", "proxy.example:443", "a b", "user@host"]) {
    assert.throws(
      () => resolveHttpTarget({ http: "127.0.0.1:0", "allow-host": [name] }, envOf({})),
      /--allow-host takes a host name/,
      name,
    );
  }
  assert.throws(() => resolveHttpTarget({ "no-auth": true }, envOf({})), /--no-auth needs --http/);
  assert.throws(
    () => resolveHttpTarget({ "allow-host": ["x"] }, envOf({})),
    /--allow-host needs --http/,
  );
});
