import assert from "node:assert/strict";
import { MemoryEventStore } from "../../tests/fakes/memory_event_store.ts";
import {
  memoryStoreWith,
  searchFetchSessions,
  synthesizeConfig,
  tempStateDir,
} from "../../tests/fakes/synthesis_corpus.ts";
import { storedSavingsReport } from "./stored_savings_report.ts";
import { synthesisPipeline } from "./synthesis_pipeline.ts";
import { SynthesizedRegistry } from "./synthesized_registry.ts";

Deno.test("storedSavingsReport() counts only the composites of the statuses asked for", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(searchFetchSessions(10));
  const registry = new SynthesizedRegistry(state.path);
  await synthesisPipeline(store, registry, { config: synthesizeConfig() }); // one TESTING tool
  const promoted = await storedSavingsReport(store, registry, { statuses: ["PROMOTED"] });
  assert.equal(promoted.composites, 0);
  assert.equal(promoted.report.calls_saved, 0);
  assert.equal(promoted.report.calls, 20);
  const testing = await storedSavingsReport(store, registry, { statuses: ["PROMOTED", "TESTING"] });
  assert.equal(testing.composites, 1);
  assert.equal(testing.report.sessions, 10);
  assert.equal(testing.report.calls_saved, 10);
  assert.equal(testing.report.share_saved, 0.5);
});

Deno.test("storedSavingsReport() on an empty store is a report of zeros", async () => {
  await using state = await tempStateDir();
  await using store = new MemoryEventStore();
  const { composites, report } = await storedSavingsReport(
    store,
    new SynthesizedRegistry(state.path),
    { statuses: ["PROMOTED"] },
  );
  assert.equal(composites, 0);
  assert.equal(report.sessions, 0);
  assert.equal(report.calls, 0);
});
