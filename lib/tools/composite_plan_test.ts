import assert from "node:assert/strict";
import {
  type CompositeDefinition,
  compositeWaves,
  parallelAsymmetries,
  planLatency,
  retryRuleOf,
} from "./composite_plan.ts";
import { runComposite, type StepExecutor } from "./composite_tool.ts";
import { VirtualClock } from "./testdata/virtual_clock.ts";

/** `count` independent read-only steps, all declared parallel with each other, capped at `cap`. */
function independent(count: number, cap: number): CompositeDefinition {
  const all = Array.from({ length: count }, (_, index) => index);
  return {
    tool_id: "fan-out",
    description: "d",
    parameters: { type: "object" },
    steps: all.map((index) => ({
      step_index: index,
      tool_id: `tool${index}`,
      inputs: {},
      parallelizable_with: all.filter((other) => other !== index),
      read_only: true,
    })),
    internal_wiring: [],
    error_strategy: { default_behavior: "abort" },
    max_parallel_steps: cap,
  };
}

/** Fake steps that sleep `durations[i]` on the clock and count how many are in flight. */
function timedSteps(clock: VirtualClock, durations: readonly number[]) {
  const seen = { inFlight: 0, most: 0, calls: 0 };
  const execute: StepExecutor = async (tool, _args, signal) => {
    seen.calls++;
    seen.inFlight++;
    seen.most = Math.max(seen.most, seen.inFlight);
    try {
      await clock.sleep(durations[Number(tool.slice(4))], signal);
    } finally {
      seen.inFlight--;
    }
    return { id: "x", tool, ok: true, output: { tool }, error: null };
  };
  return { execute, seen };
}

for (const cap of [1, 2, 3]) {
  Deno.test(`max_parallel_steps ${cap}: exactly ${cap} step(s) run at once, never more`, async () => {
    const clock = new VirtualClock();
    const { execute, seen } = timedSteps(clock, [10, 10, 10, 10, 10, 10, 10]);
    const readOnly = () => true;
    await clock.run(
      runComposite(independent(7, cap), {}, { execute, clock, deadlineMs: 60_000, readOnly }),
    );
    assert.equal(seen.calls, 7);
    assert.equal(seen.most, cap);
  });
}

Deno.test("steps the runner does not confirm read-only run one at a time, in order", async () => {
  const clock = new VirtualClock();
  const order: string[] = [];
  const { execute: timed, seen } = timedSteps(clock, [30, 20, 10, 5]);
  const execute: StepExecutor = async (tool, args, signal) => {
    const result = await timed(tool, args, signal);
    order.push(tool);
    return result;
  };
  const definition = independent(4, 3);
  await clock.run(runComposite(definition, {}, { execute, clock, deadlineMs: 60_000 }));
  assert.equal(seen.most, 1, "the step's mark alone does not let steps overlap");
  assert.deepEqual(order, ["tool0", "tool1", "tool2", "tool3"]);
  const writes = { ...definition, steps: definition.steps.map((step) => ({ ...step })) };
  writes.steps[2].read_only = false;
  assert.deepEqual(compositeWaves(writes, { readOnly: () => true }), [[0, 1], [2], [3]]);
});

Deno.test("hidden state: writes with no value between them keep their recorded order under jitter", async () => {
  // lockDoors → pressBrakePedal → startEngine: the engine starts only when both came first.
  const tools = ["lockDoors", "pressBrakePedal", "startEngine"];
  const random = seeded(7);
  for (let round = 0; round < 50; round++) {
    const state = { locked: false, brake: false, engine: false };
    const execute: StepExecutor = async (tool) => {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
      if (tool === "lockDoors") state.locked = true;
      if (tool === "pressBrakePedal") state.brake = true;
      if (tool === "startEngine") state.engine = state.locked && state.brake;
      return { id: "x", tool, ok: true, output: { ...state }, error: null };
    };
    const definition: CompositeDefinition = {
      tool_id: "start",
      description: "d",
      parameters: { type: "object" },
      // A model (or a forged file) may claim the writes can run together: they still do not.
      steps: tools.map((tool_id, index) => ({
        step_index: index,
        tool_id,
        inputs: {},
        parallelizable_with: [0, 1, 2].filter((other) => other !== index),
      })),
      internal_wiring: [],
      error_strategy: { default_behavior: "abort" },
    };
    const outcome = await runComposite(definition, {}, {
      execute,
      deadlineMs: 10_000,
      readOnly: () => false,
    });
    assert.equal(state.engine, true, `round ${round}`);
    assert.deepEqual(outcome.steps.map((step) => step.tool), tools);
  }
});

/** A small deterministic generator (mulberry32), so a failing case can be replayed. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random step graph: wires from earlier to later steps, a symmetric parallel relation. */
function randomComposite(
  random: () => number,
): { definition: CompositeDefinition; durations: number[] } {
  const count = 2 + Math.floor(random() * 7);
  const definition = independent(count, 1 + Math.floor(random() * 4));
  definition.steps.forEach((step) => {
    step.parallelizable_with = [];
    step.read_only = random() < 0.7;
  });
  for (let to = 1; to < count; to++) {
    for (let from = 0; from < to; from++) {
      if (random() < 0.3) {
        definition.internal_wiring.push({
          from_step: from,
          from_key: "tool",
          to_step: to,
          to_key: `in${from}`,
        });
        definition.steps[to].inputs[`in${from}`] = { wire: from };
      } else if (random() < 0.6) {
        definition.steps[to].parallelizable_with!.push(from);
        definition.steps[from].parallelizable_with!.push(to);
      }
    }
  }
  const durations = definition.steps.map(() => 1 + Math.floor(random() * 100));
  return { definition, durations };
}

Deno.test("for random step graphs the plan's latency is the time the runtime takes", async () => {
  const random = seeded(20261201);
  for (let round = 0; round < 100; round++) {
    const { definition, durations } = randomComposite(random);
    const clock = new VirtualClock();
    const { execute } = timedSteps(clock, durations);
    const readOnly = () => true;
    await clock.run(
      runComposite(definition, {}, { execute, clock, deadlineMs: 1_000_000, readOnly }),
    );
    assert.equal(
      clock.now(),
      planLatency(definition, durations),
      `round ${round}: ${JSON.stringify({ definition, durations })}`,
    );
  }
});

Deno.test("a one-sided parallelizable_with is refused with the reason, and never runs two at once", async () => {
  const definition = independent(2, 3);
  definition.steps[1].parallelizable_with = [];
  assert.deepEqual(parallelAsymmetries(definition), [
    "/steps/0/parallelizable_with: lists 1, but step 1 does not list 0 (the relation must be symmetric)",
  ]);
  assert.deepEqual(compositeWaves(definition), [[0], [1]]);
  const clock = new VirtualClock();
  const { execute } = timedSteps(clock, [100, 100]);
  await clock.run(runComposite(definition, {}, { execute, clock, deadlineMs: 60_000 }));
  assert.equal(clock.now(), 200);
  assert.equal(planLatency(definition, [100, 100]), 200);
});

Deno.test("the deadline cancels steps in flight and starts no more, retries included", async () => {
  const definition = independent(3, 1);
  definition.error_strategy = {
    default_behavior: "abort",
    retry_policy: [{ step: 0, max_retries: 1e8, backoff_ms: 0 }],
  };
  assert.equal(retryRuleOf(definition.error_strategy, 0).maxRetries, 10, "retries are bounded");
  const clock = new VirtualClock();
  const started: number[] = [];
  const cancelled: number[] = [];
  const execute: StepExecutor = async (tool, _args, signal) => {
    started.push(clock.now());
    try {
      await clock.sleep(40, signal);
    } catch (error) {
      cancelled.push(clock.now());
      throw error;
    }
    return { id: "x", tool, ok: false, output: null, error: { code: "io_error", message: "busy" } };
  };
  const run = runComposite(definition, {}, { execute, clock, deadlineMs: 100 });
  const outcome = await clock.run(run);
  assert.equal(outcome.failure?.code, "timeout");
  assert.match(outcome.failure?.message ?? "", /took longer than 100 ms/);
  assert.deepEqual(outcome.steps.map((step) => step.status), ["failed", "not_run", "not_run"]);
  assert.deepEqual(started, [0, 40, 80], "no attempt starts after the deadline");
  assert.deepEqual(cancelled, [100], "the attempt in flight at the deadline is cancelled");
  const before = started.length;
  await clock.run(clock.sleep(10_000));
  assert.equal(started.length, before, "nothing runs after the composite ended");
});
