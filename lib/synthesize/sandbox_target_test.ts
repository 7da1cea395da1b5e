import assert from "node:assert/strict";
import { UsageError } from "../core/mod.ts";
import { openSandboxTarget } from "./sandbox_target.ts";
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

Deno.test("openSandboxTarget() refuses a composite with a step syn has no tool for", async () => {
  await assert.rejects(
    openSandboxTarget(tool(["fs.list_dir", "kb.search"]), { root: "." }),
    (error) =>
      error instanceof UsageError &&
      error.message.startsWith("cannot execute fs.list_dir-then-kb.search: ") &&
      error.message.includes("kb.search"),
  );
});

Deno.test("openSandboxTarget() runs syn's own tools in the root it is given", async () => {
  const root = await Deno.makeTempDir({ prefix: "syn_sandbox_target_" });
  try {
    await Deno.writeTextFile(`${root}/a.txt`, "a");
    await using opened = await openSandboxTarget(tool(["fs.list_dir", "fs.list_dir"]), { root });
    assert.equal(opened.target.where, "in the sandbox");
    assert.equal(opened.target.rerunOriginals, false);
    const result = await opened.target.execute(
      "fs.list_dir",
      { path: "." },
      AbortSignal.timeout(10_000),
    );
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.match(opened.target.summarize(result.output), /a\.txt/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
