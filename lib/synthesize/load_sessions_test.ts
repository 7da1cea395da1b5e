import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { MemoryEventStore } from "../../tests/fakes/memory_event_store.ts";
import { memoryStoreWith, searchFetchSessions } from "../../tests/fakes/synthesis_corpus.ts";
import { INGEST_FIRST, loadSessions } from "./load_sessions.ts";

Deno.test("loadSessions() gives every session with its events, in session order", async () => {
  await using store = await memoryStoreWith(searchFetchSessions(3));
  const sessions = await loadSessions(store);
  assert.deepEqual(sessions.map((session) => session.session_id), ["s000", "s001", "s002"]);
  assert.deepEqual(sessions[0].events.map((event) => event.tool_id), ["kb.search", "kb.fetch"]);
});

Deno.test("loadSessions() gives [] for an empty store unless told to refuse it", async () => {
  await using store = new MemoryEventStore("sqlite /state/events.sqlite");
  assert.deepEqual(await loadSessions(store), []);
  await assert.rejects(
    loadSessions(store, { refuseEmpty: { hint: INGEST_FIRST } }),
    new SynError(
      "no_events",
      "no events in sqlite /state/events.sqlite: run 'syn synthesize ingest' first",
      { location: "sqlite /state/events.sqlite" },
    ),
  );
});
