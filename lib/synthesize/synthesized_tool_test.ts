import assert from "node:assert/strict";
import {
  type ChainSample,
  errorStrategyFor,
  synthesizeDeterministic,
} from "./synthesize_deterministic.ts";
import { checkSynthesizedTool, toolIdFor } from "./synthesized_tool.ts";

/** `kb.search` finds a doc id that `kb.fetch` then reads, always in json. */
function sample(
  index: number,
  outcomes: ("SUCCESS" | "FAILURE" | "TIMEOUT")[] = ["SUCCESS", "SUCCESS"],
): ChainSample {
  const id = `doc-${index}7`;
  return {
    session_id: `s${index}`,
    tools: [
      {
        tool_id: "kb.search",
        input_params: { query: `question ${index}`, limit: 5 + index },
        output_summary: JSON.stringify({ hits: [{ doc_id: id, score: 0.9 }] }),
        outcome: outcomes[0],
        latency_ms: 100,
      },
      {
        tool_id: "kb.fetch",
        input_params: { doc_id: id, format: "json" },
        output_summary: `text of ${id}`,
        outcome: outcomes[1],
        latency_ms: 50,
      },
    ],
  };
}

const CHAIN = {
  tools: ["kb.search", "kb.fetch"],
  support: 0.4,
  confidence: 0.9,
  avg_latency_ms: 150,
};

Deno.test("the offline synthesizer builds a tool that passes the five checks", async () => {
  const tool = synthesizeDeterministic(CHAIN, [sample(1), sample(2), sample(3)]);
  assert.deepEqual(await checkSynthesizedTool(tool, CHAIN.tools), []);
  assert.equal(tool.tool_id, "kb.search-then-kb.fetch");
  assert.deepEqual(tool.steps[0].inputs, {
    limit: { parameter: "limit" },
    query: { parameter: "query" },
  });
  assert.deepEqual(tool.steps[1].inputs, { doc_id: { wire: 0 }, format: { constant: "json" } });
  assert.deepEqual(tool.internal_wiring, [{
    from_step: 0,
    from_key: "doc_id",
    to_step: 1,
    to_key: "doc_id",
  }]);
  assert.deepEqual(tool.parameters.required, ["limit", "query"]);
  assert.deepEqual(
    tool.steps.map((step) => step.parallelizable_with),
    [[], []],
    "wired: sequential",
  );
  assert.equal(tool.error_strategy.default_behavior, "abort");
});

Deno.test("each of the five checks refuses what it should", async () => {
  const good = synthesizeDeterministic(CHAIN, [sample(1), sample(2)]);
  const broken = (change: (tool: typeof good) => void) => {
    const tool = structuredClone(good);
    change(tool);
    return checkSynthesizedTool(tool, CHAIN.tools);
  };
  assert.match((await broken((t) => delete (t as Partial<typeof t>).steps)).join(), /steps/);
  assert.match((await broken((t) => (t.parameters = { type: "nonsense" }))).join(), /parameters/);
  assert.match(
    (await broken((t) => (t.steps[1].tool_id = "kb.delete"))).join(),
    /not step 1 of the chain/,
  );
  assert.match(
    (await broken((t) => (t.internal_wiring[0].from_step = 1))).join(),
    /earlier step to a later one/,
  );
  assert.match(
    (await broken((t) => (t.steps[0].parallelizable_with = [1]))).join(),
    /depends on it/,
  );
  assert.match(
    (await broken((t) => (t.steps[0].parallelizable_with = [7]))).join(),
    /not another step/,
  );
  assert.match((await broken((t) => (t.internal_wiring = []))).join(), /no wire from step 0/);
  const independent = (t: typeof good) => {
    t.internal_wiring = [];
    t.steps.forEach((step) => step.inputs = {});
  };
  assert.deepEqual(await broken(independent), []);
  assert.match(
    (await broken((t) => {
      independent(t);
      t.steps[0].parallelizable_with = [1];
    })).join(),
    /lists 1, but step 1 does not list 0 \(the relation must be symmetric\)/,
  );
});

Deno.test("error strategy from observed failures: retry if rare, skip if the chain recovers, abort if it never does", () => {
  const ok = () => sample(1);
  const recovered = sample(2, ["FAILURE", "SUCCESS"]);
  const strategy = errorStrategyFor([ok(), ok(), ok(), recovered]);
  assert.deepEqual(strategy.retry_policy, [{
    step: 0,
    max_retries: 2,
    backoff_ms: 1000,
    backoff_factor: 2,
  }]);
  assert.deepEqual(strategy.fallback_steps, [{ step: 0, behavior: "skip" }]);
  const fatal = errorStrategyFor([
    sample(1, ["SUCCESS", "TIMEOUT"]),
    sample(2, ["SUCCESS", "TIMEOUT"]),
  ]);
  assert.deepEqual(fatal.abort_conditions, [{ step: 1, on: ["TIMEOUT"] }]);
  assert.deepEqual(fatal.retry_policy, []);
});

Deno.test("tool ids are slugs of the tool names", () => {
  assert.equal(
    toolIdFor(["get_user_details", "get_order_details"]),
    "get_user_details-then-get_order_details",
  );
  assert.equal(toolIdFor(["Kb Search!", "x"]), "kb_search_-then-x");
});

Deno.test("long chains that share their first tools get different ids, each at most 96 characters", () => {
  const base = Array(5).fill("get_reservation_details");
  const ids = [
    toolIdFor([...base, "update_reservation_flights"]),
    toolIdFor([...base, "cancel_reservation"]),
    toolIdFor([...base, "get_user_details", "get_user_details"]),
  ];
  assert.equal(new Set(ids).size, 3, ids.join("\n"));
  for (const id of ids) {
    assert.ok(id.length <= 96, id);
    assert.match(id, /^get_reservation_details-then-.*-[0-9a-f]{8}$/);
    assert.match(id, /^[a-z0-9][a-z0-9_.-]{0,95}$/);
  }
  assert.equal(ids[0], toolIdFor([...base, "update_reservation_flights"]), "stable");
});
