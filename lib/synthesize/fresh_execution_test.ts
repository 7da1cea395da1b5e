import assert from "node:assert/strict";
import { type FreshSession, type FreshWorlds, validateInFreshWorlds } from "./fresh_execution.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

/** Worlds holding a counter: `add {by}` writes, `read` reads; each world starts at 0. */
function counterWorlds(options: { failFor?: string } = {}) {
  const opened: string[] = [];
  let closed = 0;
  const worlds: FreshWorlds = {
    where: "in counters",
    summarize: (output) => JSON.stringify(output),
    open(sessionId) {
      if (sessionId === options.failFor) {
        return Promise.reject(new Error("the upstream exited: its last stderr lines: boom"));
      }
      opened.push(sessionId);
      let value = 0;
      return Promise.resolve({
        execute: (tool, args) => {
          if (tool === "add") value += Number(args.by);
          return Promise.resolve({ id: "x", tool, ok: true, output: { value }, error: null });
        },
        [Symbol.asyncDispose]: () => (closed++, Promise.resolve()),
      });
    },
  };
  return { worlds, opened, closed: () => closed };
}

function addTwice(second: { parameter: string } | { constant: unknown }): SynthesizedTool {
  return {
    tool_id: "add-then-add",
    description: "d",
    source_chain: { tools: ["add", "add"] },
    parameters: { type: "object", properties: { by: {}, step1_by: {} } },
    steps: [
      { step_index: 0, tool_id: "add", inputs: { by: { parameter: "by" } } },
      { step_index: 1, tool_id: "add", inputs: { by: second } },
    ],
    internal_wiring: [],
    error_strategy: { default_behavior: "abort" },
  };
}

const session = (id: string, second: number): FreshSession => ({
  session_id: id,
  chain_start: 1,
  calls: [
    { tool_id: "add", input_params: { by: 10 } },
    { tool_id: "add", input_params: { by: 1 } },
    { tool_id: "add", input_params: { by: second } },
    { tool_id: "read", input_params: {} },
  ],
});

const exact = (left: string, right: string) => left === right ? 1 : 0;

Deno.test("validateInFreshWorlds() compares every step and every later output in a world of its own", async () => {
  const { worlds, opened, closed } = counterWorlds();
  const score = await validateInFreshWorlds(
    addTwice({ parameter: "step1_by" }),
    [session("s1", 2), session("s2", 5)],
    { worlds: worlds, ...{ score: exact } },
  );
  assert.deepEqual(score.failures, []);
  assert.equal(score.mean_similarity, 1);
  assert.deepEqual(score.steps, { compared: 4, equal: 4 });
  assert.deepEqual(score.later, { compared: 2, equal: 2 });
  assert.deepEqual(opened.sort(), ["s1", "s1", "s2", "s2"], "two fresh worlds per session");
  assert.equal(closed(), 4, "every world is closed");
});

Deno.test("validateInFreshWorlds() fails a composite that leaves another state behind", async () => {
  // The second amount learned as a constant: right in one session, wrong in the other.
  const { worlds } = counterWorlds();
  const score = await validateInFreshWorlds(
    addTwice({ constant: 2 }),
    [session("s1", 2), session("s2", 5)],
    { worlds: worlds, ...{ score: exact } },
  );
  assert.equal(score.mean_similarity, 0.5);
  assert.equal(score.min_similarity, 0);
  assert.deepEqual(score.steps, { compared: 4, equal: 3 });
  assert.deepEqual(score.later, { compared: 2, equal: 1 }, "the later read shows the state");
});

Deno.test("validateInFreshWorlds() lists a session whose world cannot start, with why", async () => {
  const { worlds } = counterWorlds({ failFor: "s2" });
  const score = await validateInFreshWorlds(
    addTwice({ parameter: "step1_by" }),
    [session("s1", 2), session("s2", 5)],
    { worlds: worlds, ...{ score: exact, jobs: 1 } },
  );
  assert.deepEqual(score.failures, [{
    session_id: "s2",
    error: "the upstream exited: its last stderr lines: boom",
  }]);
  assert.equal(score.mean_similarity, 0.5);
});

Deno.test("validateInFreshWorlds() fails a session whose original calls do not run in a fresh world", async () => {
  // Recorded as succeeding; refused here (say, a tool the fresh sandbox does not allow):
  // two identical refusals would otherwise compare equal and prove nothing.
  const refusing: FreshWorlds = {
    where: "in refusing worlds",
    summarize: (output) => JSON.stringify(output),
    open: () =>
      Promise.resolve({
        execute: (tool) =>
          Promise.resolve({
            id: "x",
            tool,
            ok: false,
            output: null,
            error: { code: "sandbox_unavailable", message: "refused here" },
          }),
        [Symbol.asyncDispose]: () => Promise.resolve(),
      }),
  };
  const recorded = session("s1", 2);
  const withOutcomes: FreshSession = {
    ...recorded,
    calls: recorded.calls.map((call) => ({ ...call, outcome: "SUCCESS" })),
  };
  const score = await validateInFreshWorlds(
    addTwice({ parameter: "step1_by" }),
    [withOutcomes],
    { worlds: refusing, ...{ score: exact } },
  );
  assert.equal(score.mean_similarity, 0);
  assert.match(
    score.failures[0].error,
    /step 0 \(add\) succeeded when recorded but failed in a fresh world: refused here/,
  );
});
