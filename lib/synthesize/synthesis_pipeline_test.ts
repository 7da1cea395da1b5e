import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { MemoryEventStore } from "../../tests/fakes/memory_event_store.ts";
import {
  memoryStoreWith,
  searchFetchSessions,
  synthesizeConfig,
  tempStateDir,
} from "../../tests/fakes/synthesis_corpus.ts";
import { type PipelineStage, synthesisPipeline } from "./synthesis_pipeline.ts";
import { SynthesizedRegistry } from "./synthesized_registry.ts";

Deno.test("synthesisPipeline() mines, writes and validates, telling each stage in order", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(searchFetchSessions(10, { latencyMs: 0 }));
  const registry = new SynthesizedRegistry(state.path);
  const stages: PipelineStage[] = [];
  const rows = await synthesisPipeline(store, registry, {
    config: synthesizeConfig(),
    onStage: (stage) => {
      stages.push(stage);
    },
  });
  const row = {
    tool_id: "kb.search-then-kb.fetch",
    status: "TESTING",
    passed: true,
    evidence: "replay",
    latency_recorded: false,
    reason: null,
  };
  assert.deepEqual(rows, [row]);
  assert.deepEqual(stages, [
    { stage: "mine", sessions: 10, chains: 1 },
    { stage: "synthesize", written: 1 },
    { stage: "validate", row },
  ]);
  assert.equal((await registry.get(row.tool_id))?.status, "TESTING");
});

Deno.test("synthesisPipeline() leaves a tool without enough sessions a DRAFT, with why", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(searchFetchSessions(2));
  const [row] = await synthesisPipeline(store, new SynthesizedRegistry(state.path), {
    config: synthesizeConfig(),
  });
  assert.equal(row.status, "DRAFT");
  assert.equal(row.passed, false);
  assert.equal(row.evidence, null);
  assert.equal(row.latency_recorded, null);
  assert.match(row.reason ?? "", /2/);
});

Deno.test("synthesisPipeline() refuses an empty store with the hint it is given", async () => {
  await using state = await tempStateDir();
  await using store = new MemoryEventStore();
  await assert.rejects(
    synthesisPipeline(store, new SynthesizedRegistry(state.path), {
      config: synthesizeConfig(),
      emptyHint: "give --ingest FILE",
    }),
    new SynError("no_events", "no events in memory: give --ingest FILE", { location: "memory" }),
  );
});
