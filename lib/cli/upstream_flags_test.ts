import assert from "node:assert/strict";
import { UsageError } from "../core/mod.ts";
import { fakeIo } from "../../tests/fakes/cli_io.ts";
import { COMMANDS } from "./commands.ts";
import { runCli } from "./run_cli.ts";
import { upstreamFromFlags } from "./_upstream_flags.ts";

Deno.test("upstreamFromFlags() refuses neither, both, and headers for a command as bad usage", async () => {
  const url = "http://127.0.0.1:9/mcp";
  const cwd = ".";
  await assert.rejects(upstreamFromFlags({}, [], { cwd }), UsageError);
  await assert.rejects(upstreamFromFlags({ "upstream-url": url }, ["node"], { cwd }), /not both/);
  await assert.rejects(
    upstreamFromFlags({ "upstream-header": ["A: b"] }, ["node"], { cwd }),
    /go with --upstream-url/,
  );
  assert.deepEqual(await upstreamFromFlags({}, ["node", "a.js"], { cwd }), {
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

Deno.test("upstreamFromFlags() takes header values from the environment or a private file, never argv alone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_upstream_flags_" });
  try {
    await Deno.writeTextFile(`${dir}/headers`, "# secrets\nX-Team: blue\n", { mode: 0o600 });
    const target = await upstreamFromFlags(
      {
        "upstream-url": "https://mcp.example/mcp",
        "upstream-header-env": ["Authorization=UPSTREAM_AUTH"],
        "upstream-header-file": ["headers"],
      },
      [],
      { environment: { UPSTREAM_AUTH: "Bearer s3cret-value" }, cwd: dir },
    );
    assert.deepEqual(target, {
      kind: "http",
      url: "https://mcp.example/mcp",
      headers: { "X-Team": "blue", Authorization: "Bearer s3cret-value" },
    });
    await Deno.chmod(`${dir}/headers`, 0o644);
    await assert.rejects(
      upstreamFromFlags(
        { "upstream-url": "https://mcp.example/mcp", "upstream-header-file": ["headers"] },
        [],
        { cwd: dir },
      ),
      /may be read by others \(mode 644\): chmod 600 it/,
    );
    await assert.rejects(
      upstreamFromFlags({ "upstream-header-file": ["headers"] }, ["server"], { cwd: dir }),
      /go with --upstream-url/,
    );
    const url = { "upstream-url": "https://mcp.example/mcp" };
    await Deno.writeTextFile(`${dir}/big`, `X-Big: ${"b".repeat(64 * 1024)}\n`, { mode: 0o600 });
    await assert.rejects(
      upstreamFromFlags({ ...url, "upstream-header-file": ["big"] }, [], { cwd: dir }),
      /big is over 65536 bytes/,
    );
    await Deno.mkdir(`${dir}/folder`, { mode: 0o700 });
    for (const name of ["folder", "absent"]) {
      await assert.rejects(
        upstreamFromFlags({ ...url, "upstream-header-file": [name] }, [], { cwd: dir }),
        new RegExp(`no such file: ${name}`),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
