import assert from "node:assert/strict";
import { upstreamFromFlags } from "./_upstream_flags.ts";

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
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
