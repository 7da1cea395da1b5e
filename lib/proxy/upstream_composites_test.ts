import assert from "node:assert/strict";
import type { Tool } from "@modelcontextprotocol/client";
import type { SynthesizedTool } from "../synthesize/mod.ts";
import { compositeAnnotations, offerComposites } from "./upstream_composites.ts";

const tool = (name: string, annotations: Tool["annotations"]): Tool => ({
  name,
  inputSchema: { type: "object" },
  annotations,
});

function composite(toolId: string, steps: string[]): SynthesizedTool {
  return {
    tool_id: toolId,
    description: "test",
    source_chain: { tools: steps, support: 1, confidence: 1, avg_latency_ms: 0 },
    parameters: { type: "object", properties: { name: { type: "string" } } },
    steps: steps.map((tool_id, index) => ({ step_index: index, tool_id, inputs: {} })),
    internal_wiring: [],
    error_strategy: { default_behavior: "abort" },
  } as SynthesizedTool;
}

const UPSTREAM = [
  tool("find", { readOnlyHint: true, openWorldHint: false }),
  tool("read", { readOnlyHint: true, openWorldHint: false }),
  tool("write", { readOnlyHint: false, destructiveHint: false, idempotentHint: true }),
];

Deno.test("offerComposites() offers a composite with a write step only when writes are allowed", () => {
  const promoted = [composite("reads", ["find", "read"]), composite("writes", ["find", "write"])];
  const safe = offerComposites(promoted, UPSTREAM, { allowWrites: false });
  assert.deepEqual(safe.offered.map((item) => item.tool.name), ["composite.reads"]);
  assert.match(safe.skipped[0].reason, /write not read-only: offered with --allow-writes/);
  const all = offerComposites(promoted, UPSTREAM, { allowWrites: true });
  assert.deepEqual(all.offered.map((item) => item.tool.name), [
    "composite.reads",
    "composite.writes",
  ]);
  assert.deepEqual(all.offered[1].tool.inputSchema, promoted[1].parameters);
});

Deno.test("offerComposites() leaves out a composite whose steps the upstream does not list", () => {
  const offer = offerComposites([composite("other", ["find", "fs.read_text"])], UPSTREAM, {
    allowWrites: true,
  });
  assert.equal(offer.offered.length, 0);
  assert.match(offer.skipped[0].reason, /fs\.read_text is not a tool here/);
});

Deno.test("compositeAnnotations() takes the most permissive of the steps' annotations", () => {
  assert.deepEqual(compositeAnnotations(UPSTREAM.slice(0, 2)), {
    readOnlyHint: true,
    openWorldHint: false,
  });
  assert.deepEqual(compositeAnnotations([UPSTREAM[0], UPSTREAM[2]]), {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  });
  // A step without annotations takes the MCP defaults: destructive, not idempotent, open world.
  assert.deepEqual(compositeAnnotations([UPSTREAM[0], tool("bare", undefined)]), {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  });
});
