import { eventStoreConformance } from "./fakes/event_store_conformance.ts";
import { MemoryEventStore } from "./fakes/memory_event_store.ts";

// The fake the synthesis unit tests run on keeps the rules every real store keeps.
eventStoreConformance("MemoryEventStore", () => {
  const store = new MemoryEventStore();
  return Promise.resolve({
    // Every `open` sees the same events, as reopening a database would.
    open: () => Promise.resolve(store),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  });
});
