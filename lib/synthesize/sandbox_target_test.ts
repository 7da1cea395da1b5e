import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { openSandboxWorlds } from "./sandbox_target.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

function tool(steps: string[]): SynthesizedTool {
  return {
    tool_id: steps.join("-then-"),
    description: "d",
    source_chain: { tools: steps },
    parameters: { type: "object", properties: {} },
    steps: steps.map((tool_id, index) => ({
      step_index: index,
      tool_id,
      inputs: { path: { constant: "." } },
      condition: null,
    })),
    internal_wiring: [],
    error_strategy: { default_behavior: "abort" },
  };
}

Deno.test("openSandboxWorlds() refuses a composite with a step syn has no tool for", async () => {
  await assert.rejects(
    openSandboxWorlds(tool(["fs.list_dir", "kb.search"]), { root: "." }),
    (error) =>
      error instanceof SynError && error.code === "invalid_tool" &&
      error.message.startsWith("cannot execute fs.list_dir-then-kb.search: ") &&
      error.message.includes("kb.search"),
  );
});

Deno.test("openSandboxWorlds() runs each world in a fresh copy and never writes into the root", async () => {
  const root = await Deno.makeTempDir({ prefix: "syn_sandbox_target_" });
  try {
    await Deno.mkdir(`${root}/sub`);
    await Deno.writeTextFile(`${root}/sub/a.txt`, "a");
    const worlds = await openSandboxWorlds(tool(["fs.list_dir", "fs.write_text"]), { root });
    assert.match(worlds.where, /^in fresh copies of /);
    assert.equal(worlds.readOnly?.("fs.list_dir"), true);
    assert.equal(worlds.readOnly?.("fs.write_text"), false);
    const signal = AbortSignal.timeout(10_000);
    {
      await using first = await worlds.open("s1");
      const wrote = await first.execute("fs.write_text", { path: "new.txt", text: "x" }, signal);
      assert.equal(wrote.ok, true, JSON.stringify(wrote.error));
      const listed = await first.execute("fs.list_dir", { path: "." }, signal);
      assert.match(worlds.summarize(listed.output), /new\.txt/);
      await using second = await worlds.open("s1");
      const other = await second.execute("fs.read_text", { path: "sub/a.txt" }, signal);
      assert.equal(other.ok, true, JSON.stringify(other.error));
      const fresh = await second.execute("fs.list_dir", { path: "." }, signal);
      assert.doesNotMatch(worlds.summarize(fresh.output), /new\.txt/, "each world is its own copy");
    }
    const entries = [...Deno.readDirSync(root)].map((entry) => entry.name).sort();
    assert.deepEqual(entries, ["sub"], "the user's folder is left as it was");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
