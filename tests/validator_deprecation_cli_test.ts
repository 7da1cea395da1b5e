/** `syn generate` with SYN_SCHEMAS_DIR: forwarded to its stdio validator child, said once. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runSyn } from "./fakes/cli_io.ts";

const SCHEMAS = fileURLToPath(new URL("../schemas", import.meta.url));

Deno.test("syn generate warns once that SYN_SCHEMAS_DIR is deprecated when its child gets it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_schemas_dir_" });
  try {
    const result = await runSyn(["generate", "a pulsing blue circle"], {
      cwd: dir,
      env: { SYN_SCHEMAS_DIR: SCHEMAS, MCP_READY_FILE: `${dir}/ready` },
    });
    assert.equal(result.code, 0, result.stderr);
    const warnings = result.stderr.split("\n").filter((line) => line.includes("SYN_SCHEMAS_DIR"));
    assert.equal(warnings.length, 1, result.stderr);
    assert.match(warnings[0], /deprecated; forwarded to the stdio validator child/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
