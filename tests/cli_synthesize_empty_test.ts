import assert from "node:assert/strict";
import { runSyn } from "./fakes/cli_io.ts";

/** One recorded session of one call: nothing a chain could be mined from. */
const ONE_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "fs.list_dir", arguments: {} },
}) + "\n";

Deno.test("synthesize with nothing to mine says so and exits 1, with one prefix a line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_synthesize_empty_" });
  try {
    await Deno.mkdir(`${dir}/project`);
    const record = await runSyn(["mcp-serve", "--tools", "--root", "project"], {
      cwd: dir,
      stdin: ONE_CALL,
    });
    assert.equal(record.code, 0, record.stderr);
    const run = await runSyn(["synthesize", "run", "--top", "3"], { cwd: dir });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^synthesize: no tool written: mining found no chain to synthesize/);
    assert.doesNotMatch(run.stderr, /next, /);
    const pipeline = await runSyn(["synthesize", "--top", "3"], { cwd: dir });
    assert.doesNotMatch(pipeline.stderr, /synthesize: synthesize:/);
    assert.match(pipeline.stderr, /^synthesize: 0 tool\(s\) written$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
