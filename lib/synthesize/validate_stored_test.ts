import assert from "node:assert/strict";
import type { ToolResult } from "../tools/mod.ts";
import {
  memoryStoreWith,
  searchFetchSessions,
  synthesizeConfig,
  tempStateDir,
} from "../../tests/fakes/synthesis_corpus.ts";
import type { EventStore } from "./event_store.ts";
import type { ExecutionTarget } from "./execution_validation.ts";
import { runSynthesis } from "./run_synthesis.ts";
import { synthesisEngine } from "./synthesis_engine.ts";
import { SynthesizedRegistry } from "./synthesized_registry.ts";
import { validateStored } from "./validate_stored.ts";

const NOW = Date.parse("2026-02-03T04:05:06Z");

async function drafted(store: EventStore, stateDir: string) {
  const registry = new SynthesizedRegistry(stateDir);
  const engine = synthesisEngine("deterministic", synthesizeConfig());
  const { written: [entry] } = await runSynthesis(store, registry, { engine });
  return { registry, entry };
}

/** The corpus's two tools, answering as the recording did. */
function fakeTarget(calls: string[]): ExecutionTarget {
  const answer = (tool: string, args: Record<string, unknown>): unknown =>
    tool === "kb.search"
      ? { hits: [{ doc_id: `doc-${1000 + Number(String(args.query).split(" ")[1])}` }] }
      : `the text of ${args.doc_id}`;
  return {
    execute: (tool, args) => {
      calls.push(tool);
      const result: ToolResult = {
        id: "1",
        tool,
        ok: true,
        output: answer(tool, args),
        error: null,
      };
      return Promise.resolve(result);
    },
    summarize: (output) => typeof output === "string" ? output : JSON.stringify(output),
    where: "in a fake",
    rerunOriginals: false,
  };
}

Deno.test("validateStored() replays the sessions, records the result and moves the tool to TESTING", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(searchFetchSessions(10));
  const { registry, entry } = await drafted(store, state.path);
  const outcome = await validateStored(store, registry, {
    entry,
    config: synthesizeConfig(),
    now: () => NOW,
  });
  assert.ok(!("insufficient" in outcome));
  assert.equal(outcome.status, "TESTING");
  assert.equal(outcome.result.passed, true);
  assert.equal(outcome.result.evidence, "replay");
  assert.equal(outcome.result.validated_at, "2026-02-03T04:05:06.000Z");
  const saved = await registry.get(entry.tool.tool_id);
  assert.equal(saved?.status, "TESTING");
  assert.deepEqual(saved?.validation, outcome.result);
});

Deno.test("validateStored() promotes without approval only an executed tool, or replay accepted by name", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(searchFetchSessions(3));
  const { registry, entry } = await drafted(store, state.path);
  const config = synthesizeConfig({
    synthesis: { require_approval: false },
    validation: { min_replay_sessions: 3 },
  });
  const replayed = await validateStored(store, registry, { entry, config });
  assert.ok(!("insufficient" in replayed));
  assert.equal(replayed.status, "TESTING", "a pass on replay alone is never promoted by default");
  await assert.rejects(registry.promote(entry.tool.tool_id), /validated on replay alone/);

  const executed = await validateStored(store, registry, {
    entry,
    config,
    target: fakeTarget([]),
  });
  assert.ok(!("insufficient" in executed));
  assert.equal(executed.status, "PROMOTED");
  assert.equal((await registry.get(entry.tool.tool_id))?.replay_only, undefined);

  const accepted = await validateStored(store, registry, { entry, config, allowReplayOnly: true });
  assert.ok(!("insufficient" in accepted));
  assert.equal(accepted.status, "PROMOTED");
  assert.equal((await registry.get(entry.tool.tool_id))?.replay_only, true);
});

Deno.test("approve --promote refuses replay-only evidence unless allowReplayOnly, and the entry says so", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(searchFetchSessions(3));
  const { registry, entry } = await drafted(store, state.path);
  const config = synthesizeConfig({ validation: { min_replay_sessions: 3 } });
  await validateStored(store, registry, { entry, config });
  await assert.rejects(
    registry.promote(entry.tool.tool_id),
    (error: Error & { code?: string }) =>
      error.code === "not_promotable" && /--allow-replay-only/.test(error.message),
  );
  assert.equal((await registry.get(entry.tool.tool_id))?.status, "TESTING");
  const promoted = await registry.promote(entry.tool.tool_id, { allowReplayOnly: true });
  assert.equal(promoted.status, "PROMOTED");
  assert.equal(promoted.replay_only, true);
});

Deno.test("validateStored() with too few sessions says so and leaves the tool a DRAFT", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(searchFetchSessions(4));
  const { registry, entry } = await drafted(store, state.path);
  const outcome = await validateStored(store, registry, { entry, config: synthesizeConfig() });
  assert.ok("insufficient" in outcome);
  assert.match(outcome.insufficient, /4/);
  assert.equal((await registry.get(entry.tool.tool_id))?.status, "DRAFT");
});

Deno.test("validateStored() executes the composite through the target it is given", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(searchFetchSessions(3));
  const { registry, entry } = await drafted(store, state.path);
  const calls: string[] = [];
  const outcome = await validateStored(store, registry, {
    entry,
    config: synthesizeConfig({ validation: { min_replay_sessions: 3 } }),
    target: fakeTarget(calls),
  });
  assert.ok(!("insufficient" in outcome));
  assert.equal(outcome.result.evidence, "execution");
  assert.equal(outcome.result.execution?.where, "in a fake");
  assert.ok(Math.abs((outcome.result.execution?.mean_similarity ?? 0) - 1) < 1e-9);
  assert.equal(outcome.result.passed, true);
  assert.deepEqual(calls, [
    "kb.search",
    "kb.fetch",
    "kb.search",
    "kb.fetch",
    "kb.search",
    "kb.fetch",
  ]);
});
