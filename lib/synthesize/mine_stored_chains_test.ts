import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { MemoryEventStore } from "../../tests/fakes/memory_event_store.ts";
import { memoryStoreWith, searchFetchSessions } from "../../tests/fakes/synthesis_corpus.ts";
import { mineStoredChains } from "./mine_stored_chains.ts";

Deno.test("mineStoredChains() mines every stored session and says whether latency was recorded", async () => {
  await using store = await memoryStoreWith(searchFetchSessions(4, { latencyMs: 30 }));
  const mined = await mineStoredChains(store, { minLength: 2 });
  assert.equal(mined.sessions, 4);
  assert.equal(mined.latency_recorded, true);
  assert.deepEqual(mined.chains.map((chain) => [chain.chain, chain.support]), [
    ["kb.search>kb.fetch", 1],
  ]);
  assert.equal(mined.chains[0].avg_latency_ms, 60);
});

Deno.test("mineStoredChains() on a corpus with no latencies says so", async () => {
  await using store = await memoryStoreWith(searchFetchSessions(2, { latencyMs: 0 }));
  assert.equal((await mineStoredChains(store)).latency_recorded, false);
});

Deno.test("mineStoredChains() refuses an empty store with the next step", async () => {
  await using store = new MemoryEventStore();
  await assert.rejects(
    mineStoredChains(store),
    new SynError("no_events", "no events in memory: run 'syn synthesize ingest' first", {
      location: "memory",
    }),
  );
});
