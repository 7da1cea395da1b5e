import assert from "node:assert/strict";
import type { Client, Tool } from "@modelcontextprotocol/client";
import type { SynthesizedTool } from "../synthesize/mod.ts";
import { callComposite, compositeAnnotations, offerComposites } from "./upstream_composites.ts";

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

/** An upstream that answers each call after `delay(tool)` ms and logs starts and ends. */
function fakeUpstream(delay: (tool: string) => number = () => 0) {
  const log: string[] = [];
  let inFlight = 0;
  let most = 0;
  let count = 0;
  const client = {
    async callTool(request: { name: string; arguments?: Record<string, unknown> }) {
      const call = count++;
      inFlight++;
      most = Math.max(most, inFlight);
      log.push(`start ${request.name}`);
      await new Promise((resolve) => setTimeout(resolve, delay(request.name)));
      inFlight--;
      log.push(`end ${request.name}`);
      const output = { call, tool: request.name, args: request.arguments ?? {} };
      return {
        content: [{ type: "text", text: JSON.stringify(output) }],
        structuredContent: output,
      };
    },
  } as unknown as Client;
  return { client, log, most: () => most };
}

const RUN = { signal: new AbortController().signal, deadlineMs: 10_000 };

Deno.test("callComposite() returns every step's output by index, also when the last tool repeats", async () => {
  const definition = composite("chain", ["find", "read", "read"]);
  definition.steps[1].inputs = { id: { constant: "r1" } };
  definition.steps[2].inputs = { id: { constant: "r2" } };
  const offered = offerComposites([definition], UPSTREAM, { allowWrites: false }).offered[0];
  const upstream = fakeUpstream((tool) => tool === "read" ? 5 : 0);
  const result = await callComposite(upstream.client, offered, { name: "n" }, RUN);
  assert.equal(result.isError, undefined);
  const { steps, result: last } = result.structuredContent as {
    steps: { step: number; tool: string; ok: boolean; output: { call: number; args: unknown } }[];
    result: { call: number };
  };
  assert.deepEqual(steps.map((step) => [step.step, step.tool, step.ok]), [
    [0, "find", true],
    [1, "read", true],
    [2, "read", true],
  ]);
  assert.deepEqual(steps.map((step) => step.output.call), [0, 1, 2]);
  assert.deepEqual(steps[1].output.args, { id: "r1" });
  assert.equal(last.call, 2, "the last step's own output, not an earlier one of the same tool");
  const text = (result.content as { text: string }[])[0].text;
  assert.match(text, /\[step 0: find — ok\]\n\{"call":0/);
  assert.match(text, /\[step 2: read — ok\]\n\{"call":2/);
});

Deno.test("callComposite() checks the arguments first: a bad call names the pointer and calls nothing", async () => {
  const definition = composite("strict", ["find", "read"]);
  definition.parameters = {
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
    additionalProperties: false,
  };
  definition.steps[0].inputs = { name: { parameter: "name" } };
  const offered = offerComposites([definition], UPSTREAM, { allowWrites: false }).offered[0];
  const upstream = fakeUpstream();
  for (const args of [{}, { name: "a", extra: 1 }, { name: 7 }]) {
    const result = await callComposite(upstream.client, offered, args, RUN);
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.match(
      (result.content as { text: string }[])[0].text,
      /^invalid arguments for composite\.strict: \//,
    );
  }
  assert.deepEqual(upstream.log, [], "no upstream call for a bad call");
});

Deno.test("callComposite() overlaps only steps the upstream marks read-only, whatever the file says", async () => {
  const definition = composite("mixed", ["find", "read", "write", "find"]);
  definition.steps.forEach((step, index) => {
    step.read_only = true; // a forged file: every step claims to be read-only
    step.parallelizable_with = [0, 1, 2, 3].filter((other) => other !== index);
  });
  const offered = offerComposites([definition], UPSTREAM, { allowWrites: true }).offered[0];
  const upstream = fakeUpstream(() => 5);
  const result = await callComposite(upstream.client, offered, {}, RUN);
  assert.equal(result.isError, undefined);
  // The two read-only steps overlap; the write waits for both and nothing overlaps it.
  assert.deepEqual(upstream.log.slice(0, 2), ["start find", "start read"]);
  assert.deepEqual(upstream.log.slice(2, 4).sort(), ["end find", "end read"]);
  assert.deepEqual(upstream.log.slice(4), [
    "start write",
    "end write",
    "start find",
    "end find",
  ]);
  assert.equal(upstream.most(), 2);
});
