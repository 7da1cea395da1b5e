import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { MemoryEventStore } from "../../tests/fakes/memory_event_store.ts";
import {
  memoryStoreWith,
  searchFetchSessions,
  synthesizeConfig,
  tempStateDir,
} from "../../tests/fakes/synthesis_corpus.ts";
import type { ToolEvent } from "./tool_event.ts";
import { runSynthesis } from "./run_synthesis.ts";
import { type SynthesisEngine, synthesisEngine } from "./synthesis_engine.ts";
import { SynthesizedRegistry } from "./synthesized_registry.ts";

/** The offline engine, recording each chain it is asked to write and how many samples. */
function recordingEngine(calls: string[]): SynthesisEngine {
  const offline = synthesisEngine("deterministic", synthesizeConfig());
  return {
    name: "recording",
    write: (chain, samples) => {
      calls.push(`${chain.chain} (${samples.length} samples)`);
      return offline.write(chain, samples);
    },
  };
}

/** Sessions of search → fetch, and fewer of them that also list the folder first. */
function twoChains(): ToolEvent[] {
  const listed = searchFetchSessions(2).map((event) => ({
    ...event,
    session_id: `list-${event.session_id}`,
    event_id: `list-${event.event_id}`,
  }));
  const lists = listed.filter((event) => event.tool_id === "kb.search").map((event) => ({
    ...event,
    event_id: `${event.event_id}-ls`,
    tool_id: "fs.list",
    ts_ms: event.ts_ms - 500,
  }));
  return [...searchFetchSessions(4), ...listed, ...lists];
}

Deno.test("runSynthesis() writes the top chain as a DRAFT, after telling what mining found", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(twoChains());
  const registry = new SynthesizedRegistry(state.path);
  const calls: string[] = [];
  const run = await runSynthesis(store, registry, {
    engine: recordingEngine(calls),
    onMined: ({ sessions, chains }) => {
      calls.push(`mined ${sessions} sessions: ${chains.map((chain) => chain.chain)}`);
    },
  });
  assert.deepEqual(calls, [
    "mined 6 sessions: kb.search>kb.fetch",
    "kb.search>kb.fetch (6 samples)",
  ]);
  assert.equal(run.sessions, 6);
  assert.deepEqual(run.written.map((entry) => [entry.status, entry.tool.tool_id]), [
    ["DRAFT", "kb.search-then-kb.fetch"],
  ]);
  assert.equal((await registry.get("kb.search-then-kb.fetch"))?.engine, "recording");
});

Deno.test("runSynthesis() takes the top N, or the one chain named", async () => {
  await using state = await tempStateDir();
  await using store = await memoryStoreWith(twoChains());
  const registry = new SynthesizedRegistry(state.path);
  const engine = recordingEngine([]);
  const top = await runSynthesis(store, registry, { engine, top: 10 });
  assert.deepEqual(top.chains.map((chain) => chain.chain), [
    "kb.search>kb.fetch",
    "fs.list>kb.search>kb.fetch",
    "fs.list>kb.search",
  ]);
  const named = await runSynthesis(store, registry, { engine, chain: "fs.list>kb.search" });
  assert.deepEqual(named.written.map((entry) => entry.tool.tool_id), [
    "fs.list-then-kb.search",
  ]);
});

Deno.test("runSynthesis() refuses a chain mining does not find, and an empty store", async () => {
  await using state = await tempStateDir();
  const registry = new SynthesizedRegistry(state.path);
  const engine = recordingEngine([]);
  await using store = await memoryStoreWith(searchFetchSessions(2));
  await assert.rejects(
    runSynthesis(store, registry, { engine, chain: "kb.fetch>kb.search" }),
    new SynError(
      "not_found",
      "no mined chain kb.fetch>kb.search (see 'syn synthesize mine'; tools joined by >)",
      { chain: "kb.fetch>kb.search" },
    ),
  );
  await using empty = new MemoryEventStore();
  await assert.rejects(
    runSynthesis(empty, registry, { engine, emptyHint: "give --ingest FILE" }),
    new SynError("no_events", "no events in memory: give --ingest FILE", { location: "memory" }),
  );
  assert.deepEqual(await registry.list(), []);
});
