/**
 * The synthesis loop on a slice of a public agent benchmark whose tools really execute:
 * 40 BFCL multi-turn base scenarios (50–89, the vehicle-control ones where chains recur;
 * even numbers train, odd ones held out) served by `../shared/conformance/agent-envs/`.
 * Through the CLI as a user runs it: record through `syn mcp-proxy`, synthesize, validate,
 * promote; then each held-out session runs as recorded and with promoted composites
 * standing in for the chains they express, against a server that answers in order and one
 * that answers concurrently (`--jitter-ms 20`). Every final state must equal the original
 * (BFCL's own `state_checker`), every composite call must return each step's output equal
 * to the original call's, and nothing may be promoted on replay evidence alone.
 * `scripts/bench_loop.ts` runs the same on all 200 scenarios and on tau-bench airline.
 */
import assert from "node:assert/strict";
import { bfclSplit, loopSkipReason, runLoop } from "../scripts/_loop_harness.ts";

const SKIP = loopSkipReason();
if (SKIP) console.warn(`skipping the benchmark loop test: ${SKIP}`);

Deno.test({
  name: "promoted composites keep BFCL's final states and return every step's output",
  ignore: SKIP !== undefined,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "syn-benchmark-loop-" });
    try {
      const split = await bfclSplit(50, 89);
      assert.equal(split.train.length, 20);
      assert.equal(split.heldOut.length, 20);
      const figures = await runLoop(split, { dir, top: 6, jobs: 2, jitterModes: [0, 20] });
      const summary = JSON.stringify(figures, null, 2);
      assert.ok(figures.promoted.length > 0, `nothing was promoted:\n${summary}`);
      assert.deepEqual(figures.promoted_replay_only, [], `promoted on replay alone:\n${summary}`);
      for (const mode of figures.modes) {
        const where = `${mode.mode}:\n${summary}`;
        assert.ok(mode.composite_calls > 0, `no held-out call was replaced (${where})`);
        assert.ok(mode.calls_after < mode.calls_before, where);
        assert.equal(mode.composite_calls_failed, 0, where);
        assert.equal(mode.composite_calls_steps_equal, mode.composite_calls, where);
        assert.equal(mode.later_outputs_equal, mode.later_outputs, where);
        assert.equal(mode.states_equal, mode.replaced_sessions, where);
        assert.deepEqual(mode.problems, [], where);
      }
      const [inOrder] = figures.modes;
      console.log(
        `benchmark loop: ${figures.promoted.length} promoted; held-out calls ` +
          `${inOrder.calls_before} → ${inOrder.calls_after}; ${inOrder.composite_calls} ` +
          `composite calls; ${inOrder.replaced_sessions} final states equal in every mode`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
