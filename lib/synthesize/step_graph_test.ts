import assert from "node:assert/strict";
import { StepGraph } from "./step_graph.ts";

Deno.test("StepGraph orders steps, and knows ancestry", () => {
  const graph = new StepGraph([
    { id: "search" },
    { id: "fetch_a", depends_on: ["search"] },
    { id: "fetch_b", depends_on: ["search"] },
    { id: "fetch_c", depends_on: ["search"] },
    { id: "merge", depends_on: ["fetch_a", "fetch_b", "fetch_c"] },
  ]);
  assert.deepEqual(graph.order, ["search", "fetch_a", "fetch_b", "fetch_c", "merge"]);
  assert.equal(graph.isAncestor("search", "merge"), true);
  assert.equal(graph.canRunTogether("fetch_a", "fetch_b"), true);
  assert.equal(graph.canRunTogether("search", "fetch_b"), false);
});

Deno.test("StepGraph refuses duplicates, missing dependencies and cycles, naming the cycle", () => {
  assert.throws(() => new StepGraph([{ id: "a" }, { id: "a" }]), /Duplicate step id: a/);
  assert.throws(() => new StepGraph([{ id: "a", depends_on: ["b"] }]), /missing step: b/);
  assert.throws(
    () =>
      new StepGraph([{ id: "a", depends_on: ["c"] }, { id: "b", depends_on: ["a"] }, {
        id: "c",
        depends_on: ["b"],
      }, { id: "d" }]),
    /Steps form a cycle: (a → b → c → a|b → c → a → b|c → a → b → c)/,
  );
});
