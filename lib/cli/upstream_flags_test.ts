import assert from "node:assert/strict";
import { UsageError } from "../core/mod.ts";
import { fakeIo } from "../../tests/fakes/cli_io.ts";
import { COMMANDS } from "./commands.ts";
import { runCli } from "./run_cli.ts";
import { upstreamFromFlags } from "./_upstream_flags.ts";

Deno.test("upstreamFromFlags() refuses neither, both, and headers for a command as bad usage", () => {
  const url = "http://127.0.0.1:9/mcp";
  assert.throws(() => upstreamFromFlags({}, []), UsageError);
  assert.throws(() => upstreamFromFlags({ "upstream-url": url }, ["node"]), /not both/);
  assert.throws(
    () => upstreamFromFlags({ "upstream-header": ["A: b"] }, ["node"]),
    /go with --upstream-url/,
  );
  assert.deepEqual(upstreamFromFlags({}, ["node", "a.js"]), {
    kind: "stdio",
    command: "node",
    args: ["a.js"],
  });
});

Deno.test("syn mcp-proxy words the proxy's refusal of a value with its flag, exit 2", async () => {
  const cases: [string[], string][] = [
    [
      ["--upstream-url", "ftp://user:pw@x.example/"],
      "syn mcp-proxy: --upstream-url: the upstream URL is not an http:// or https:// URL; see 'syn mcp-proxy --help'\n",
    ],
    [
      ["--upstream-url", "http://127.0.0.1:9/mcp", "--upstream-header", "nocolon"],
      "syn mcp-proxy: --upstream-header: a header is 'Name: value'; see 'syn mcp-proxy --help'\n",
    ],
  ];
  for (const [args, expected] of cases) {
    const io = fakeIo();
    assert.equal(await runCli(["mcp-proxy", ...args], io, COMMANDS), 2);
    assert.equal(io.err(), expected);
  }
});
