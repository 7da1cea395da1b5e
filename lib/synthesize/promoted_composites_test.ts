import assert from "node:assert/strict";
import { join } from "node:path";
import { baselineRegistry } from "../tools/mod.ts";
import { registerPromotedComposites } from "./promoted_composites.ts";
import type { ValidationResult } from "./replay_validation.ts";
import { SynthesizedRegistry } from "./synthesized_registry.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

function tool(id: string, steps: [string, string | null][]): SynthesizedTool {
  return {
    tool_id: id,
    description: "d",
    source_chain: { tools: steps.map(([name]) => name) },
    parameters: { type: "object", properties: {} },
    steps: steps.map(([tool_id, condition], index) => ({
      step_index: index,
      tool_id,
      inputs: { path: { constant: "." } },
      condition,
    })),
    internal_wiring: [],
    error_strategy: { default_behavior: "abort" },
  };
}

const PASSED = {
  passed: true,
  evidence: "execution",
  reasons: [],
  validated_at: "2026-01-01T00:00:00.000Z",
} as unknown as ValidationResult;

Deno.test("promoted composites join a registry; unknown steps and bad conditions are left out, with why", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const registry = new SynthesizedRegistry(dir);
    const tools = [
      tool("good", [["fs.list_dir", null], ["fs.list_dir", 'step0.output["total"] > 0']]),
      tool("bad-condition", [["fs.list_dir", null], ["fs.list_dir", "len(step0) > 0"]]),
      tool("elsewhere", [["get_user_details", null], ["fs.list_dir", null]]),
      tool("draft", [["fs.list_dir", null], ["fs.list_dir", null]]),
    ];
    for (const item of tools) {
      await registry.saveDraft(item, "deterministic");
      if (item.tool_id === "draft") continue;
      if (item.tool_id !== "bad-condition") {
        await registry.recordValidation(item.tool_id, PASSED, { requireApproval: false });
        continue;
      }
      // A file edited by hand: marked PROMOTED, though its condition does not parse.
      const file = join(dir, "synthesized", "bad-condition.json");
      const stored = JSON.parse(await Deno.readTextFile(file));
      await Deno.writeTextFile(
        file,
        JSON.stringify({ ...stored, status: "PROMOTED", validation: PASSED }),
      );
    }
    const target = await baselineRegistry();
    const report = await registerPromotedComposites(target, dir);
    assert.deepEqual(report.registered, ["composite.good"]);
    assert.deepEqual(report.skipped.map((entry) => entry.tool_id), [
      "bad-condition.json",
      "elsewhere",
    ]);
    assert.match(report.skipped[0].problems.join(), /step 1: /);
    assert.match(report.skipped[1].problems.join(), /get_user_details is not a tool here/);
    assert.ok(target.get("composite.good"));
    assert.equal(target.get("composite.draft"), undefined, "a DRAFT is never offered");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the synthesized registry writes 0600 files in a 0700 folder, tightening a 0755 state dir", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.chmod(dir, 0o755);
    const registry = new SynthesizedRegistry(dir);
    await registry.saveDraft(tool("t", [["fs.list_dir", null]]), "deterministic");
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    assert.equal((await Deno.stat(registry.folder)).mode! & 0o777, 0o700);
    for await (const entry of Deno.readDir(registry.folder)) {
      const mode = (await Deno.stat(`${registry.folder}/${entry.name}`)).mode! & 0o777;
      assert.equal(mode, 0o600, entry.name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
