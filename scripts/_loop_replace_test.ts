import assert from "node:assert/strict";
import type { SynthesizedTool } from "../lib/synthesize/mod.ts";
import {
  chainNamesOccur,
  chainOccurrences,
  compositeArguments,
  type ObservedCall,
  planReplacement,
  sameOutput,
} from "./_loop_replace.ts";

/** lookup(city) → book(zip wired from lookup, seats a parameter, class a constant). */
const TOOL: SynthesizedTool = {
  tool_id: "lookup-then-book",
  description: "",
  source_chain: { tools: ["lookup", "book"] },
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, seats: { type: "integer" } },
    required: ["city"],
    additionalProperties: false,
  },
  steps: [
    { step_index: 0, tool_id: "lookup", inputs: { city: { parameter: "city" } } },
    {
      step_index: 1,
      tool_id: "book",
      inputs: { zip: { wire: 0 }, seats: { parameter: "seats" }, class: { constant: "economy" } },
    },
  ],
  internal_wiring: [{ from_step: 0, from_key: "zip", to_step: 1, to_key: "zip" }],
  error_strategy: { default_behavior: "abort" },
};

const lookup = (city: string, zip: string): ObservedCall => ({
  name: "lookup",
  args: { city },
  output: JSON.stringify({ zip }),
  ok: true,
});
const book = (args: Record<string, unknown>): ObservedCall => ({
  name: "book",
  args,
  output: "booked",
  ok: true,
});

Deno.test("compositeArguments() maps parameters, checks constants and wires", () => {
  const calls = [lookup("Rivermist", "83214"), book({ zip: "83214", seats: 2, class: "economy" })];
  assert.deepEqual(compositeArguments(TOOL, calls), { city: "Rivermist", seats: 2 });
  // A parameter the recorded call left out stays out.
  assert.deepEqual(
    compositeArguments(TOOL, [calls[0], book({ zip: "83214", class: "economy" })]),
    { city: "Rivermist" },
  );
});

Deno.test("compositeArguments() refuses what the composite cannot express", () => {
  const ok = lookup("Rivermist", "83214");
  const cases: [ObservedCall[], RegExp][] = [
    [[ok, book({ zip: "00000", class: "economy" })], /not what the wire finds/],
    [[ok, book({ zip: "83214", class: "business" })], /not the constant/],
    [[ok, book({ zip: "83214" })], /not the constant/],
    [[ok, book({ zip: "83214", class: "economy", note: "x" })], /does not set note/],
    [[{ ...ok, ok: false }, book({ zip: "83214", class: "economy" })], /failed/],
    [[{ ...ok, args: {} }, book({ zip: "83214", class: "economy" })], /required parameter city/],
    [[ok], /length differs/],
  ];
  for (const [calls, reason] of cases) {
    const answer = compositeArguments(TOOL, calls);
    assert.equal(typeof answer, "string", JSON.stringify(calls));
    assert.match(answer as string, reason);
  }
});

Deno.test("planReplacement() replaces each expressible occurrence and keeps the rest", () => {
  const calls = [
    lookup("A", "1"),
    book({ zip: "1", class: "economy" }),
    book({ zip: "1", class: "economy" }),
    lookup("B", "2"),
    book({ zip: "9", class: "economy" }),
    lookup("C", "3"),
    book({ zip: "3", seats: 1, class: "economy" }),
  ];
  const plan = planReplacement(calls, [TOOL]);
  assert.deepEqual(plan.map((call) => call.kind === "call" ? call.index : call.covers), [
    [0, 1],
    2,
    3,
    4,
    [5, 6],
  ]);
  assert.deepEqual(plan.at(-1)?.args, { city: "C", seats: 1 });
});

Deno.test("chainOccurrences() finds every run of the chain's names, with its reason", () => {
  const calls = [
    lookup("A", "1"),
    book({ zip: "1", class: "economy" }),
    lookup("B", "2"),
    book({ zip: "9", class: "economy" }),
  ];
  assert.ok(chainNamesOccur(calls, [TOOL]));
  assert.ok(!chainNamesOccur([calls[1], calls[0]], [TOOL]));
  assert.deepEqual(chainOccurrences(calls, [TOOL]), [
    { tool_id: "lookup-then-book", at: 0 },
    { tool_id: "lookup-then-book", at: 2, reason: "step 1's zip is not what the wire finds" },
  ]);
});

Deno.test("sameOutput() compares values, and JSON text with its parsed value", () => {
  assert.ok(sameOutput("plain", "plain"));
  assert.ok(sameOutput({ a: 1 }, '{"a": 1}'));
  assert.ok(!sameOutput({ a: 1 }, '{"a": 2}'));
  assert.ok(!sameOutput("x", "y"));
});
